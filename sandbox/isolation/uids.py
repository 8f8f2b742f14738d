"""One uid per concurrent sandbox session, leased across every kbench process on this machine.

RLIMIT_NPROC counts the tasks (threads included) of a real uid, machine-wide. Were every session to drop to the
same uid, one session's threads would spend every other session's budget: their forks fail with EAGAIN. So each
session runs as its own uid from a pool (`base`, `base + 1`, ...), held with one lock file per uid. `flock` is
released by the kernel when the holder dies, so a killed run never leaves a uid taken, and two kbench processes
(two runs, a run beside a test) never hand out the same uid at once."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import stat
import time
from pathlib import Path
from typing import Iterator

import psutil

from sandbox.isolation.procs import dying

DEFAULT_BASE = 100_000
DEFAULT_SIZE = 256
POLL_S = 0.05


def default_root() -> Path:
    return Path(os.environ.get("KBENCH_UIDS_DIR") or "/run/kbench-uids")


def _subuid_ranges(path: Path) -> list[range]:
    out = []
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(":")
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            start = int(parts[1])
            out.append(range(start, start + int(parts[2])))
    return out


def _overlaps(a: range, b: range) -> bool:
    return a.start < b.stop and b.start < a.stop


class UidPool:
    """`size` uids from `base`; `lease()` holds one for a session."""

    def __init__(self, base: int | None = None, size: int | None = None, root: Path | None = None):
        self.base = int(os.environ.get("KBENCH_UID_BASE", DEFAULT_BASE)) if base is None else base
        self.size = int(os.environ.get("KBENCH_UID_POOL_SIZE", DEFAULT_SIZE)) if size is None else size
        if self.size < 1:
            raise ValueError(f"the uid pool needs at least one uid, got {self.size}")
        self.root = root or default_root()
        self._check_free()

    @property
    def uids(self) -> range:
        return range(self.base, self.base + self.size)

    def _check_free(self) -> None:
        # A uid that belongs to someone (an account, or a user namespace's subordinate range such as a rootless
        # container's root) would share that owner's process budget and files: refuse the pool instead.
        taken = [f"user {p.pw_name}" for p in pwd.getpwall() if p.pw_uid in self.uids]
        for f in ("/etc/subuid", "/etc/subgid"):
            taken += [f"{f} range {r.start}-{r.stop - 1}" for r in _subuid_ranges(Path(f)) if _overlaps(r, self.uids)]
        if taken:
            raise RuntimeError(f"the sandbox uid pool {self.base}-{self.uids.stop - 1} overlaps {', '.join(taken)}: "
                               "set KBENCH_UID_BASE to a free range")

    @contextlib.contextmanager
    def lease(self) -> Iterator[int]:
        """Wait for a free uid and hold it for the block."""
        self._make_root()
        while True:
            for uid in self.uids:
                fd = os.open(self.root / f"uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                if _has_processes(uid):  # something still runs as it (a session still dying): not free yet
                    os.close(fd)
                    continue
                try:
                    yield uid
                finally:
                    os.close(fd)  # closing the only descriptor releases the lock
                return
            time.sleep(POLL_S)

    def strays(self) -> list[psutil.Process]:
        """Processes running as a uid of the pool that no session holds: what outlived its session (one already on
    its way out, killed by its pid namespace's end, is not)."""
        found = []
        for p in psutil.process_iter(["uids"]):
            uids = p.info["uids"]
            uid = uids.real if uids else None
            if uid in self.uids and not self.held(uid) and not dying(p.pid):
                found.append(p)
        return found

    def held(self, uid: int) -> bool:
        """Someone holds the uid's lease now (probing takes its lock for an instant)."""
        try:
            fd = os.open(self.root / f"uid-{uid}.lock", os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def _make_root(self) -> None:
        # Another user could have made the folder first (or a link in its place) and so hold our uids or watch
        # them: use it only when it is a real folder of our own.
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(self.root)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise RuntimeError(f"{self.root} is not a folder of this user: remove it or set KBENCH_UIDS_DIR elsewhere")


def processes_of(uid: int) -> dict[int, psutil.Process]:
    """The processes running as `uid` (real or effective)."""
    out = {}
    for p in psutil.process_iter(["uids"]):
        uids = p.info["uids"]
        if uids and uid in (uids.real, uids.effective):
            out[p.pid] = p
    return out


def _has_processes(uid: int) -> bool:
    for p in psutil.process_iter(["uids"]):
        uids = p.info["uids"]
        if uids and uid in (uids.real, uids.effective):
            return True
    return False


_POOL: UidPool | None = None


def pool() -> UidPool:
    """The machine's pool, made on first use (so a bad range is reported only where uids are needed)."""
    global _POOL
    if _POOL is None:
        _POOL = UidPool()
    return _POOL
