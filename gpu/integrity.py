"""The grader's own files (its code, the task definitions, the private references), kept byte for byte across a
grading. A submission's process that is not in the sandbox (on a GPU, for now) runs with the grader's rights and
could rewrite them, to pass later gradings rather than this one; this notices it, puts every file back and removes
what it added. Unsandboxed gradings should not run side by side: a change cannot be told apart between them (the
pipeline's gpu pool runs one at a time)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SKIP = {"__pycache__", ".pytest_cache"}


def _entries(root: Path) -> list[Path]:
    """Files and links under root, links not followed (a planted link to / must not send us through the disk)."""
    if not root.is_dir() or root.is_symlink():
        return [root] if root.exists() or root.is_symlink() else []
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP]
        out += [Path(folder) / f for f in files]
        out += [Path(folder) / d for d in dirs if (Path(folder) / d).is_symlink()]
    return out


class FileGuard:
    def __init__(self, roots: list[Path]):
        self.roots = [Path(r).resolve() for r in roots]
        self.files: dict[Path, bytes] = {}
        for root in self.roots:
            for p in _entries(root):
                if p.is_file() and not p.is_symlink():
                    self.files[p] = p.read_bytes()

    def restore(self) -> list[str]:
        """Put back what changed or went missing, remove what was added; returns what it had to fix."""
        fixed = []
        for p, data in self.files.items():
            try:
                same = not p.is_symlink() and p.read_bytes() == data
            except OSError:
                same = False
            if same:
                continue
            if p.is_symlink() or p.is_file():
                p.unlink()
            elif p.is_dir():
                shutil.rmtree(p)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            fixed.append(str(p))
        for root in self.roots:
            for p in _entries(root) if root.is_dir() else []:
                if p not in self.files:
                    if p.is_dir() and not p.is_symlink():
                        shutil.rmtree(p)
                    else:
                        p.unlink()
                    fixed.append(f"{p} (added)")
        return fixed
