"""Opening files in an agent's work folder from the root harness, so that nothing the agent left there can hang,
exhaust or fool it.

The sandbox user owns the work folder and can put anything in it: FIFOs (an open for writing waits for a reader
forever), sockets, links to files outside, links swapped in after a check. So a path is resolved once and then
walked again one component at a time from a descriptor of the folder, never following a link (a link that appears
after the check is refused, not followed); the last component is opened as O_PATH, which does no I/O and cannot
block, its type checked on that descriptor, and only a regular file is reopened for reading or writing, through
/proc/self/fd, so the checked inode is exactly the one opened.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_IO_FLAGS = os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_RETRIES = 3  # a name removed or recreated under us while we open it: try again a few times, then refuse


class ToolError(Exception):
    """A tool call that failed; the message goes back to the model as the tool's (error) result."""


class OutsideFolder(ToolError):
    pass


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a link that cannot be followed (a loop, or it was swapped in while being opened)"
    return "not a regular file"


def check_path_text(raw: str) -> None:
    """A path the OS can take: JSON can carry NUL and lone surrogates, on which os calls raise ValueError."""
    if "\x00" in raw:
        raise ToolError(f"path {raw!r} contains a NUL character")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"path {raw!r} is not valid Unicode") from exc


class WorkFolder:
    """One work folder; every open lands on a file inside it, or raises ToolError."""

    def __init__(self, root: Path):
        self.root = Path(os.path.realpath(root))

    def parts(self, raw: str) -> tuple[str, ...]:
        """The components of raw below the folder, links inside the folder followed; outside: OutsideFolder."""
        check_path_text(raw)
        # realpath, not Path.resolve: on a link loop it stops instead of raising; the walk then refuses the loop.
        target = Path(os.path.realpath(self.root / raw))
        if target != self.root and self.root not in target.parents:
            raise OutsideFolder(f"path {raw!r} is outside the working folder")
        parts = target.relative_to(self.root).parts
        if not parts:
            raise ToolError(f"path {raw!r} is the working folder itself, not a file")
        return parts

    def _parent_fd(self, raw: str, parts: tuple[str, ...], on_new_dir: Callable[[int], None] | None) -> int:
        """A descriptor of the folder holding the last part; missing folders are made when on_new_dir is given."""
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for i, name in enumerate(parts[:-1]):
                made = False
                if on_new_dir is not None:
                    try:
                        os.mkdir(name, dir_fd=fd)  # never follows: a link or FIFO of that name is EEXIST
                        made = True
                    except FileExistsError:
                        pass
                try:
                    nfd = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    raise ToolError(f"no such file: {raw}") from None
                except OSError as exc:
                    if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                        raise ToolError(f"{'/'.join(parts[:i + 1])} (in the path {raw!r}) is not a folder") from None
                    raise
                os.close(fd)
                fd = nfd
                if made:
                    on_new_dir(fd)
            return fd
        except BaseException:
            os.close(fd)
            raise

    @staticmethod
    def _reopen_regular(raw: str, name: str, dir_fd: int, flags: int, for_write: bool) -> tuple[int, os.stat_result]:
        """Open name (in dir_fd) with flags only if it is a regular file; FileNotFoundError when it is gone."""
        pfd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            st = os.fstat(pfd)
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(f"{raw} is {_kind(st.st_mode)}, not a regular file; the read, write and edit tools "
                                "open regular files only (use bash for anything else)")
            if for_write and st.st_nlink > 1:
                # A hard link may be a file outside the folder: writing (and chowning) it as root would reach there.
                raise ToolError(f"{raw} has {st.st_nlink} hard links; the write and edit tools refuse files with more "
                                "than one (remove the extra links, or copy the file, first)")
            return os.open(f"/proc/self/fd/{pfd}", flags | _IO_FLAGS), st
        finally:
            os.close(pfd)

    def open_existing(self, raw: str, flags: int, for_write: bool) -> tuple[int, os.stat_result]:
        """A descriptor (with flags) of the existing regular file raw, and its stat."""
        parts = self.parts(raw)
        dir_fd = self._parent_fd(raw, parts, None)
        try:
            return self._reopen_regular(raw, parts[-1], dir_fd, flags, for_write)
        except FileNotFoundError:
            raise ToolError(f"no such file: {raw}") from None
        finally:
            os.close(dir_fd)

    def open_for_write(self, raw: str, on_new_dir: Callable[[int], None]) -> int:
        """A descriptor of raw emptied for writing, created if absent; missing folders are made, and on_new_dir(fd)
        called for each, so the caller can hand them to the sandbox user."""
        parts = self.parts(raw)
        dir_fd = self._parent_fd(raw, parts, on_new_dir)
        try:
            for _ in range(_RETRIES):
                try:
                    # O_EXCL never follows a link nor opens what exists: a new file, or FileExistsError.
                    return os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _IO_FLAGS, 0o666,
                                   dir_fd=dir_fd)
                except FileExistsError:
                    pass
                try:
                    return self._reopen_regular(raw, parts[-1], dir_fd, os.O_WRONLY | os.O_TRUNC, True)[0]
                except FileNotFoundError:
                    continue
            raise ToolError(f"{raw} kept changing while it was being opened")
        finally:
            os.close(dir_fd)


# --- bounded reading and writing -------------------------------------------------------------------------------

CHUNK = 1 << 20


def _check_time(deadline: float, doing: str) -> None:
    if time.monotonic() > deadline:
        raise ToolError(f"the tool ran out of time while {doing}; stopped")


@dataclass(frozen=True)
class Window:
    """Lines first..last of a file, read without holding more than about cap + CHUNK bytes."""

    data: bytes  # whole lines (the last one perhaps without its newline), or the head of line `first` when cut
    first: int
    last: int  # first - 1 when nothing was there
    more: bool  # the file goes on after data
    cut: bool  # line `first` alone is longer than the cap: data is its first cap bytes
    start_byte: int  # where line `first` begins in the file
    lines_in_file: int  # only meaningful when data is empty: how many lines the file has


def read_window(fd: int, first: int, limit: int | None, cap: int, deadline: float) -> Window:
    line, pos, start_byte = 1, 0, None  # line holds the byte at offset pos
    out, newlines, ends_nl, eof = bytearray(), 0, False, False
    while True:
        _check_time(deadline, "reading")
        chunk = os.read(fd, CHUNK)
        if not chunk:
            eof = True
            break
        ends_nl = chunk.endswith(b"\n")
        i = 0
        while line < first:
            j = chunk.find(b"\n", i)
            if j < 0:
                break
            line, i = line + 1, j + 1
        if line >= first:
            if start_byte is None:
                start_byte = pos + i
            out += chunk[i:]
            newlines += chunk.count(b"\n", i)
        pos += len(chunk)
        if len(out) > cap or (limit is not None and newlines >= limit):
            break
    kept = bytes(out)
    if limit is not None and newlines >= limit:
        rest = kept.split(b"\n", limit)[-1]
        kept = kept[:len(kept) - len(rest)]
    more = len(kept) < len(out) or not eof
    cut = False
    if len(kept) > cap:
        k = kept.rfind(b"\n", 0, cap)
        cut = k < 0
        kept = kept[:cap] if cut else kept[:k + 1]
        more = True
    shown = 1 if cut else kept.count(b"\n") + (not kept.endswith(b"\n") and bool(kept))
    return Window(data=kept, first=first, last=first + shown - 1, more=more, cut=cut,
                  start_byte=start_byte or 0, lines_in_file=0 if pos == 0 else line - 1 if ends_nl else line)


def read_all(fd: int, cap: int, deadline: float) -> bytes | None:
    """The whole file, or None when it holds more than cap bytes (it may grow after a size check)."""
    buf = bytearray()
    while len(buf) <= cap:
        _check_time(deadline, "reading")
        chunk = os.read(fd, CHUNK)
        if not chunk:
            return bytes(buf)
        buf += chunk
    return None


def write_all(fd: int, data: bytes, deadline: float) -> None:
    view, done = memoryview(data), 0
    while done < len(view):
        _check_time(deadline, "writing (the file is incomplete)")
        done += os.write(fd, view[done:done + CHUNK])
