"""Reading a file the agent made, as a privileged judge may (rule 3 of the judging boundary).

The judge often runs as root or as the harness's user while the agent's processes made the folder. Every component
of the path is opened with O_NOFOLLOW below a folder descriptor, so a link anywhere on the way (a folder link made
to point at /root, a file link to /etc/shadow) is refused, never followed; only a regular file is read, and no more
than the cap. A refusal raises `NotReadable` (an OSError), which the caller grades as the agent's missing or wrong
file, never as infra.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

MAX_BYTES = 1 << 20

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs the open


class NotReadable(OSError):
    """The agent's file is missing, a link, not a regular file, outside the folder, or too big."""


def _parts(rel: str | PurePosixPath) -> list[str]:
    rel = PurePosixPath(rel)
    if rel.is_absolute() or any(p == ".." for p in rel.parts):
        raise NotReadable(f"{rel}: a path that leaves the work folder")
    parts = [p for p in rel.parts if p not in ("", ".")]
    if not parts:
        raise NotReadable(f"{rel}: names the work folder itself, not a file")
    return parts


def read_agent_file(root: Path | str, rel: str | PurePosixPath, *, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of `root/rel`, following no link at any component below `root`; at most `max_bytes`."""
    parts = _parts(rel)
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError as exc:
        raise NotReadable(f"the work folder cannot be opened: {exc.strerror}") from None
    try:
        for name in parts[:-1]:
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise NotReadable(f"{rel}: {name} is not a plain folder ({exc.strerror})") from None
            os.close(fd)
            fd = nxt
        try:
            ffd = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
        except OSError as exc:
            raise NotReadable(f"{rel}: cannot be read without following a link ({exc.strerror})") from None
    finally:
        os.close(fd)
    try:
        st = os.fstat(ffd)
        if not stat.S_ISREG(st.st_mode):
            raise NotReadable(f"{rel}: not a regular file")
        if st.st_size > max_bytes:
            raise NotReadable(f"{rel}: {st.st_size} bytes, more than the {max_bytes} the judge reads")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(ffd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(ffd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise NotReadable(f"{rel}: more than the {max_bytes} bytes the judge reads")
    return data


def read_agent_text(root: Path | str, rel: str | PurePosixPath, *, max_bytes: int = MAX_BYTES) -> str:
    """`read_agent_file` as UTF-8 text, undecodable bytes replaced."""
    return read_agent_file(root, rel, max_bytes=max_bytes).decode("utf-8", errors="replace")
