"""The code image the run containers start from: the sandbox's base image plus this machine's Python, the venv and
the repository, each at the very path it has here.

The venv names its interpreter by absolute path and the package is installed editable (the venv points at the
repository's folder), so nothing is reinstalled: the three trees are copied in as they are, with COPY steps only
(our engine has no bridge for RUN steps and no registry to pull from). The build context is streamed to the engine
as a tar holding only what runs: the interpreter without its own site-packages (the venv does not see them), its
test suite, static library or headers; the whole venv; the repository's files that git knows of (tracked, or new
and not ignored), without .git, node_modules or anything ignored.

Two images, so that an edit of the code uploads the code alone: the runtime (base + interpreter + venv, gigabytes,
changed only by an install) and the code image on top of it (the repository, megabytes). Each is tagged by a hash
of its context's listing (paths, sizes, modes, modification times, link targets) and its Dockerfile: an unchanged
tree reuses its image at the cost of one walk over it.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.containers import engine, image

REPOSITORY = "kbench-code"
RUNTIME_REPOSITORY = "kbench-runtime"
OWNER_LABEL = "kbench.code"  # the repository's folder: images of another checkout are left alone
REPO = Path(__file__).resolve().parents[2]
# Parts of the interpreter's prefix no run imports: the venv has its own site-packages and never sees these.
PYTHON_SKIPPED = ("include", "share", "lib/pkgconfig", "lib/python{v}/site-packages", "lib/python{v}/test",
                  "lib/python{v}/config-{v}-x86_64-linux-gnu", "lib/python{v}/idlelib", "lib/python{v}/tkinter")


@dataclass(frozen=True)
class Part:
    name: str  # its folder in the build context
    source: Path  # where it is here, and so in the image


@dataclass(frozen=True)
class BuildReport:
    name: str
    built: bool  # False: images of this content were already there
    seconds: float
    size_bytes: int
    context_bytes: int  # what was uploaded to build it (and the runtime, when that was built too); 0 when reused


def parts() -> list[Part]:
    venv, base = Path(sys.prefix), Path(sys.base_prefix)
    if venv == base:
        raise RuntimeError("the code image copies the project's venv: run kbench from it (.venv/bin/kbench)")
    if base in (Path("/usr"), Path("/usr/local")):
        raise RuntimeError(f"the venv's Python lives in {base}, a system prefix the image cannot copy whole: make "
                           "the venv from a self-contained Python (e.g. pyenv's)")
    return [Part("python", base), Part("venv", venv), Part("repo", REPO)]


def _python_skipped(base: Path) -> set[Path]:
    v = f"{sys.version_info.major}.{sys.version_info.minor}"
    return {base / s.format(v=v) for s in PYTHON_SKIPPED}


def _walk(root: Path, skipped: set[Path]):
    """Every folder, file and link under `root` (itself included), minus the `skipped` subtrees; links not followed."""
    yield root
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            p = here / d
            if p in skipped:
                continue
            if p.is_symlink():
                yield p  # a link to a folder: kept as the link, never walked into
            else:
                keep.append(d)
                yield p
        dirnames[:] = keep
        for f in sorted(filenames):
            yield here / f


def _repo_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(f"the code image takes the repository's files from git, which failed in {REPO}: {e}") from e
    files = sorted({REPO / name for name in out.decode().split("\0") if name})
    # a file deleted but not yet committed is still listed by git
    present = [f for f in files if f.is_symlink() or f.exists()]
    folders = sorted({d for f in present for d in f.parents if d != REPO and REPO in d.parents})
    return [REPO, *folders, *present]


def _entries(part: Part) -> list[tuple[Path, str]]:
    """(path here, name in the build context) for everything of `part`."""
    if part.name == "repo":
        paths = _repo_files()
    elif part.name == "python":
        paths = list(_walk(part.source, _python_skipped(part.source)))
    else:
        paths = list(_walk(part.source, set()))
    return [(p, part.name if p == part.source else f"{part.name}/{p.relative_to(part.source)}") for p in paths]


def recipes(base_image: str) -> list[tuple[str, list[Part], list[str]]]:
    """(repository, the parts it copies, the Dockerfile lines after them) of each image, the lower first."""
    python, venv, repo = parts()
    path = f"ENV PATH={venv.source / 'bin'}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    return [(RUNTIME_REPOSITORY, [python, venv], [path]), (REPOSITORY, [repo], [f"WORKDIR {repo.source}"])]


def dockerfile(base: str, copied: list[Part], after: list[str]) -> str:
    return "\n".join([f"FROM {base}", *(f"COPY {p.name} {p.source}" for p in copied), *after]) + "\n"


def content_tag(entries: list[tuple[Path, str]], recipe: str) -> str:
    h = hashlib.sha256(recipe.encode())
    for path, name in entries:
        st = path.lstat()
        link = os.readlink(path) if path.is_symlink() else ""
        h.update(f"{name}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}\0{link}\n".encode())
    return h.hexdigest()[:16]


def _stream_context(entries: list[tuple[Path, str]], recipe: str, written: list[int]):
    """The build context as a tar, produced by a thread into a pipe and read back in 1 MiB chunks (the engine
    takes a chunked upload), so the gigabytes of the venv never sit on disk a second time."""
    read_fd, write_fd = os.pipe()

    class Counting(io.RawIOBase):
        def __init__(self, fd: int):
            self.fh = os.fdopen(fd, "wb")

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            self.fh.write(b)
            written[0] += len(b)
            return len(b)

        def close(self) -> None:
            self.fh.close()
            super().close()

    def produce() -> None:
        sink = Counting(write_fd)
        try:
            with tarfile.open(fileobj=sink, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                text = recipe.encode()
                info = tarfile.TarInfo("Dockerfile")
                info.size = len(text)
                tar.addfile(info, io.BytesIO(text))
                for path, name in entries:
                    tar.add(path, arcname=name, recursive=False)
        except BrokenPipeError:
            pass  # the engine stopped reading: its own error is what the build reports
        finally:
            sink.close()

    threading.Thread(target=produce, name="code-image-context", daemon=True).start()
    with os.fdopen(read_fd, "rb") as src:
        yield from iter(lambda: src.read(1 << 20), b"")


def _build_one(client, repository: str, recipe: str, entries: list[tuple[Path, str]], log) -> tuple[str, int]:
    """`repository:TAG` for this content, built unless there: (its name, the bytes uploaded; 0 when reused)."""
    import docker

    name = f"{repository}:{content_tag(entries, recipe)}"
    try:
        client.images.get(name)
        return name, 0
    except docker.errors.ImageNotFound:
        pass
    log(f"building {name} from {len(entries)} files (COPY only)")
    written = [0]
    failed = None
    for chunk in client.api.build(fileobj=_stream_context(entries, recipe, written), custom_context=True, tag=name,
                                  rm=True, forcerm=True, decode=True, labels={OWNER_LABEL: REPO.as_posix()}):
        failed = failed or chunk.get("error")
    if failed:
        raise RuntimeError(f"{name} did not build: {failed.strip()}")
    _remove_older(client, repository, name)
    return name, written[0]


def build(client=None, log=print) -> BuildReport:
    """The code image for this tree, on the runtime for this venv: each reused when its content tag exists, else
    built (the older tags of it removed)."""
    client = client or engine.client()
    base = image.image_name()
    engine.require_image(base)
    start = time.monotonic()
    uploaded = 0
    for repository, copied, after in recipes(base):
        recipe = dockerfile(base, copied, after)
        base, sent = _build_one(client, repository, recipe, [e for p in copied for e in _entries(p)], log)
        uploaded += sent
    return BuildReport(base, uploaded > 0, time.monotonic() - start, client.images.get(base).attrs["Size"], uploaded)


def _remove_older(client, repository: str, keep: str) -> None:
    """Earlier images of this repository's: a newer code image has no use for them."""
    import docker

    for old in client.images.list(name=repository, filters={"label": f"{OWNER_LABEL}={REPO.as_posix()}"}):
        # an unchanged content under a new listing (a file touched) is the same image: only its old tag goes
        for tag in [t for t in old.tags if t != keep]:
            try:
                client.images.remove(tag)
            except docker.errors.APIError:
                pass  # an exited run container of it is still kept: it goes with the next `deploy stop`
