"""Walking, removing and re-owning folder trees that an agent made, whatever their shape.

An agent can leave a tree 2000 folders deep (os.walk and shutil.rmtree recurse and raise RecursionError on
Python 3.11; a path that long is also past PATH_MAX), a folder of a million names, links in a loop, names that
are not UTF-8, FIFOs, sockets and device nodes. Everything here works through open folder descriptors (openat):
no loop in Python's call stack, no path longer than one name, no link ever followed (O_NOFOLLOW, lstat), no
open of anything but a folder. A walk is bounded (entries, depth, open folders) and says what it left out.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_OPEN_DIRS = 256  # folders a walk holds open at once: one per level that still has folders to visit
_CHUNK = 4096  # names read from one folder at a time while removing it


@dataclass
class Entry:
    """One name in the tree, as lstat saw it. `dir_fd` (the folder holding it) is open only until the walk moves
    on: use it at once, e.g. os.open(entry.name, ..., dir_fd=entry.dir_fd)."""

    rel: str  # path below the root, '/'-joined; a name that is not UTF-8 carries surrogate escapes (os.fsdecode)
    name: str
    depth: int  # 1 for the root's own entries
    st: os.stat_result
    dir_fd: int

    @property
    def kind(self) -> str:
        mode = self.st.st_mode
        if stat.S_ISDIR(mode):
            return "dir"
        if stat.S_ISLNK(mode):
            return "link"
        if stat.S_ISREG(mode):
            return "file"
        return "other"  # fifo, socket, device


class _Folder:
    """An open folder; it stays open while subfolders of it wait to be opened."""

    __slots__ = ("fd", "waiting")

    def __init__(self, fd: int):
        self.fd, self.waiting = fd, 0


@dataclass
class Walk:
    """Every entry under `root` (not the root itself), each folder listed before what it holds; links are entries,
    never followed. Iterate it once; `truncated` then says why part of the tree was left out (None: none was)."""

    root: Path
    max_entries: int | None = None
    max_depth: int | None = None  # folders at this depth are listed but not entered
    skip: Callable[[Entry], bool] | None = None  # a folder for which this is true is listed but not entered
    max_open: int = MAX_OPEN_DIRS
    truncated: str | None = None
    errors: int = 0  # folders that could not be read (gone, or no permission)
    seen: int = 0
    _open: int = field(default=0, repr=False)

    def _cut(self, why: str) -> None:
        self.truncated = self.truncated or why

    def _done_with(self, folder: _Folder) -> None:
        os.close(folder.fd)
        self._open -= 1

    def _release(self, folder: _Folder) -> None:
        folder.waiting -= 1
        if folder.waiting == 0:
            self._done_with(folder)

    def __iter__(self) -> Iterator[Entry]:
        try:  # the root is the harness's own choice (a link to it is followed); nothing below it is
            fd: int | None = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            self.errors += 1
            return
        self._open = 1
        # (folder holding it, name, rel, depth, fd once open); a stack, so the walk goes deep first and holds
        # open only the folders along one path
        pending: list[tuple[_Folder | None, str, str, int, int | None]] = [(None, "", "", 0, fd)]
        try:
            while pending:
                parent, name, rel, depth, fd = pending.pop()
                if fd is None:
                    try:
                        fd = os.open(name, _DIR_FLAGS, dir_fd=parent.fd)
                        self._open += 1
                    except OSError:
                        self.errors += 1
                    self._release(parent)
                    if fd is None:
                        continue
                folder = _Folder(fd)
                try:
                    yield from self._list(folder, rel, depth, pending)
                finally:
                    if folder.waiting == 0:
                        self._done_with(folder)
                if self.max_entries is not None and self.seen > self.max_entries:
                    break
        finally:  # stopped early: close what the rest of the walk would have needed
            for parent, *_ in pending:
                if parent is not None:
                    self._release(parent)

    def _list(self, folder: _Folder, rel: str, depth: int, pending: list) -> Iterator[Entry]:
        subfolders = []
        try:
            with os.scandir(folder.fd) as it:
                for de in it:
                    self.seen += 1
                    if self.max_entries is not None and self.seen > self.max_entries:
                        self._cut(f"more than {self.max_entries} entries")
                        break
                    try:
                        st = de.stat(follow_symlinks=False)
                    except OSError:
                        continue  # gone since the folder was read
                    entry = Entry(f"{rel}/{de.name}" if rel else de.name, de.name, depth + 1, st, folder.fd)
                    yield entry
                    if entry.kind == "dir" and not (self.skip and self.skip(entry)):
                        if self.max_depth is not None and entry.depth >= self.max_depth:
                            self._cut(f"folders nested deeper than {self.max_depth} levels "
                                      f"(first: {_short(entry.rel)}/)")
                        else:
                            subfolders.append(entry)
        except OSError:
            self.errors += 1
        if len(subfolders) > 1 and self._open > self.max_open:
            self._cut(f"more than {self.max_open} nested levels of folders that hold several folders "
                      f"(at {_short(rel) or '.'}/)")
            return
        folder.waiting = len(subfolders)
        for e in reversed(subfolders):
            pending.append((folder, e.name, e.rel, e.depth, None))


def _short(rel: str, keep: int = 200) -> str:
    return rel if len(rel) <= keep else f"{rel[:keep]}..."


def remove_tree(path: Path, ignore_errors: bool = False) -> None:
    """Remove `path` and everything under it, any depth or width; a link is removed, never followed. Folders
    below MAX_OPEN_DIRS levels are moved up to the top first, so no more than that many are open at once."""
    path = Path(path)
    errors: list[OSError] = []
    try:
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(path)
            return
        parent_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError:
        if ignore_errors:
            return
        raise
    try:
        _remove_folder(parent_fd, path.name, errors)
    finally:
        os.close(parent_fd)
    if errors and not ignore_errors and os.path.lexists(path):
        raise errors[0]


def _open_folder(name: str, dir_fd: int) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:  # a folder its maker closed to itself (chmod 000): ours to open again
        if not stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise
        os.chmod(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


class _Frame:
    __slots__ = ("fd", "name", "names", "failed")

    def __init__(self, fd: int, name: str):
        self.fd, self.name, self.names, self.failed = fd, name, [], set()


def _remove_folder(parent_fd: int, name: str, errors: list[OSError]) -> None:
    try:
        fd = _open_folder(name, parent_fd)
    except FileNotFoundError:
        return
    except OSError as exc:
        errors.append(exc)
        return
    stack = [_Frame(fd, name)]
    moved = itertools.count()
    try:
        while stack:
            top = stack[-1]
            if not top.names:
                # Read the next names afresh (the ones removed are gone); stop when only failures are left.
                try:
                    with os.scandir(top.fd) as it:
                        top.names = [de.name for de in itertools.islice(
                            (de for de in it if de.name not in top.failed), _CHUNK)]
                except OSError as exc:
                    errors.append(exc)
                    top.names = []
                if not top.names:
                    stack.pop()
                    os.close(top.fd)
                    holder = stack[-1] if stack else None
                    try:
                        os.rmdir(top.name, dir_fd=holder.fd if holder else parent_fd)
                    except FileNotFoundError:
                        pass
                    except OSError as exc:
                        errors.append(exc)
                        if holder:
                            holder.failed.add(top.name)
                    continue
            entry = top.names.pop()
            if _unlink(entry, top, errors):
                continue
            if len(stack) >= MAX_OPEN_DIRS:
                # Move it up beside the top folder's entries: the top frame reads it again later.
                while True:
                    new = f".kbench-remove-{next(moved)}"
                    try:
                        os.rename(entry, new, src_dir_fd=top.fd, dst_dir_fd=stack[0].fd)
                        break
                    except OSError as exc:
                        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
                            errors.append(exc)
                            top.failed.add(entry)
                            break
                continue
            try:
                stack.append(_Frame(_open_folder(entry, top.fd), entry))
            except FileNotFoundError:
                continue
            except OSError as exc:
                errors.append(exc)
                top.failed.add(entry)
    finally:
        for frame in stack:
            os.close(frame.fd)


def _unlink(name: str, frame: _Frame, errors: list[OSError]) -> bool:
    """Remove a name that is not a folder; False when it is a folder (to be entered)."""
    for attempt in (1, 2):
        try:
            os.unlink(name, dir_fd=frame.fd)
            return True
        except FileNotFoundError:
            return True
        except IsADirectoryError:
            return False
        except PermissionError as exc:
            if exc.errno == errno.EPERM:  # some systems answer EPERM for a folder
                try:
                    if stat.S_ISDIR(os.stat(name, dir_fd=frame.fd, follow_symlinks=False).st_mode):
                        return False
                except OSError:
                    pass
            if attempt == 1:  # a folder its maker made read-only: ours to open again
                try:
                    os.chmod(frame.fd, 0o700)
                    continue
                except OSError:
                    pass
            errors.append(exc)
            frame.failed.add(name)
            return True
        except OSError as exc:
            errors.append(exc)
            frame.failed.add(name)
            return True
    return True


def chown_tree(path: Path, uid: int, gid: int | None = None) -> Walk:
    """Give `path` and everything under it to uid (links themselves, never their targets). Returns the walk, whose
    `truncated` says what was not reached."""
    gid = uid if gid is None else gid
    os.chown(path, uid, gid, follow_symlinks=False)
    walk = Walk(Path(path), max_entries=5_000_000)
    for e in walk:
        try:
            os.chown(e.name, uid, gid, dir_fd=e.dir_fd, follow_symlinks=False)
        except OSError:
            continue  # gone since it was listed
    return walk


def listing(root: Path, label: str, limit: int) -> list[str]:
    """`label/REL` for every name that is not a folder under `root` (sorted), at most `limit` of them, then one
    line saying how many more there were or why the listing stopped."""
    walk = Walk(Path(root), max_entries=limit * 20, max_depth=256)
    names = sorted(f"{label}/{e.rel}" for e in walk if e.kind != "dir")
    out = names[:limit]
    if len(names) > limit:
        out.append(f"{label}/... (listing truncated: {len(names) - limit} more not listed)")
    if walk.truncated:
        out.append(f"{label}/... (listing truncated: {walk.truncated})")
    return out


MAX_SNAPSHOT = 20_000


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    # ctime moves with every write, chmod, rename and utime, and cannot be set back by the file's owner
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def snapshot(root: Path) -> dict[str, tuple[int, int, int, int]]:
    """What `root` holds now (names that are not folders, by inode, size and times), for changed_since."""
    return {e.rel: _signature(e.st) for e in Walk(Path(root), max_entries=MAX_SNAPSHOT, max_depth=256)
            if e.kind != "dir"}


def changed_since(root: Path, before: dict, limit: int) -> list[str]:
    """Names under `root` that are new or changed since `before` (sorted, at most `limit`, then a line saying how
    many more or why the listing stopped)."""
    walk = Walk(Path(root), max_entries=MAX_SNAPSHOT, max_depth=256)
    names = sorted(e.rel for e in walk if e.kind != "dir" and before.get(e.rel) != _signature(e.st))
    out = names[:limit]
    if len(names) > limit:
        out.append(f"... (listing truncated: {len(names) - limit} more not listed)")
    if walk.truncated:
        out.append(f"... (listing truncated: {walk.truncated})")
    return out


def cwd_within(pid: int, folder: Path, max_levels: int = 100_000) -> bool:
    """Whether process `pid`'s current folder is `folder` or below it, by inode: a folder so deep that its path is
    past PATH_MAX has no readable /proc/PID/cwd link, but can still be opened and climbed with '..'."""
    try:
        target = os.stat(folder)
        fd = os.open(f"/proc/{pid}/cwd", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        for _ in range(max_levels):
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
                return True
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
            same = (os.fstat(up).st_dev, os.fstat(up).st_ino) == (st.st_dev, st.st_ino)
            os.close(fd)
            fd = up
            if same:  # the top of its file system tree
                return False
        return False
    except OSError:
        return False
    finally:
        os.close(fd)


def publish(made: Path, final: Path) -> None:
    """A folder made whole under a temporary name becomes `final` in one rename; where a concurrent maker's copy got
    there first, that one stays (the caller removes its own leftover)."""
    try:
        os.rename(made, final)
    except OSError:
        if not final.is_dir():
            raise


def seal(folder: Path) -> None:
    """A folder of the grader's, readable by any sandbox uid and writable by none of them: folders 0755, files 0644,
    what lies in a bin/ folder 0755."""
    for dirpath, _dirs, filenames in os.walk(folder):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o755 if os.path.basename(dirpath) == "bin" else 0o644)
