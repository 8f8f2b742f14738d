"""The grader's own files (its code, the task definitions, the private references), kept byte for byte across a
grading. A submission's process that is not in the sandbox (on a GPU, for now) runs with the grader's rights and
could rewrite them, to pass later gradings rather than this one; this notices it, puts every file back and removes
what it added. Unsandboxed gradings should not run side by side: a change cannot be told apart between them (the
pipeline's gpu pool runs one at a time)."""

from __future__ import annotations

from pathlib import Path

from sandbox.isolation.trees import Walk, remove_tree

SKIP = {"__pycache__", ".pytest_cache"}
# The grader's trees hold a few hundred files; a walk that stops here has met what a submission planted.
MAX_ENTRIES = 100_000


class FileGuard:
    def __init__(self, roots: list[Path]):
        self.roots = [Path(r).resolve() for r in roots]
        self.files: dict[Path, bytes] = {}
        self.folders: set[Path] = set()
        for root in self.roots:
            if not root.is_dir():
                if root.is_file():
                    self.files[root] = root.read_bytes()
                continue
            self.folders.add(root)
            walk = Walk(root, max_entries=MAX_ENTRIES, skip=lambda e: e.name in SKIP)
            for e in walk:
                if e.name in SKIP:
                    continue
                if e.kind == "dir":
                    self.folders.add(root / e.rel)
                elif e.kind == "file":
                    self.files[root / e.rel] = (root / e.rel).read_bytes()
            if walk.truncated:  # restore() would take what was never read for an addition and remove it
                raise RuntimeError(f"cannot guard {root}: it holds {walk.truncated}")

    def restore(self) -> list[str]:
        """Remove what was added (first, so no file is written back through a link planted in its place), put back
        what changed or went missing; returns what it had to fix."""
        fixed = []
        for root in self.roots:
            if root not in self.folders or root.is_symlink() or not root.is_dir():
                continue
            # links are listed, never followed; a folder added since (any depth of one) is listed, not entered
            walk = Walk(root, max_entries=MAX_ENTRIES,
                        skip=lambda e, root=root: e.name in SKIP or (root / e.rel) not in self.folders)
            added = [root / e.rel for e in walk if e.name not in SKIP
                     and (root / e.rel) not in (self.folders if e.kind == "dir" else self.files)]
            for p in added:
                remove_tree(p)
                fixed.append(f"{p} (added)")
            if walk.truncated:
                fixed.append(f"{root} (not checked through: it holds {walk.truncated})")
        for p, data in self.files.items():
            try:
                same = not p.is_symlink() and p.is_file() and p.read_bytes() == data  # a FIFO would block a read
            except OSError:
                same = False
            if same:
                continue
            remove_tree(p)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            fixed.append(str(p))
        return fixed
