"""Finding and killing every process of a session, fork bombs and setsid'd daemons included."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psutil

from sandbox.isolation.trees import cwd_within


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def session_processes(root_pid: int, sid: int | None = None) -> dict[int, psutil.Process]:
    """The root process, its descendants and (without a pid namespace) anything still in its session."""
    found: dict[int, psutil.Process] = {}
    try:
        root = psutil.Process(root_pid)
        found[root_pid] = root
        for c in root.children(recursive=True):
            found[c.pid] = c
    except psutil.Error:
        pass
    if sid is not None:
        for p in psutil.process_iter():
            try:
                if p.pid not in found and os.getsid(p.pid) == sid:
                    found[p.pid] = p
            except (psutil.Error, OSError):
                continue
    return found


def processes_in_folder(folder: Path) -> dict[int, psutil.Process]:
    """Processes whose current folder is inside `folder`: how the sweep catches setsid'd daemons."""
    target = str(Path(folder).resolve())
    me = os.getpid()
    found = {}
    for p in psutil.process_iter():
        if p.pid == me:
            continue
        try:
            inside = _inside(p.cwd(), target)
        except psutil.Error:
            continue
        except OSError:  # a folder too deep for its path to be read (ENAMETOOLONG): climb it by inode instead
            inside = cwd_within(p.pid, Path(target))
        if inside:
            found[p.pid] = p
    return found


_PF_EXITING = 0x4
_SIGKILL_BIT = 1 << (signal.SIGKILL - 1)


def dying(pid: int) -> bool:
    """Already on its way out: a SIGKILL pending (a pid namespace's end sends one to each of its processes) or
    the kernel's exit begun. Such a process still shows its current folder for a moment, and is nobody's leftover."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            flags = int(fh.read().rpartition(b")")[2].split()[6])
        with open(f"/proc/{pid}/status", "rb") as fh:
            pending = [int(line.split()[1], 16) for line in fh if line.startswith((b"SigPnd:", b"ShdPnd:"))]
    except (OSError, ValueError, IndexError):
        return True  # gone while we looked
    return bool(flags & _PF_EXITING) or any(mask & _SIGKILL_BIT for mask in pending)


def _alive(procs: dict[int, psutil.Process]) -> dict[int, psutil.Process]:
    out = {}
    for pid, p in procs.items():
        try:
            if p.status() != psutil.STATUS_ZOMBIE and not dying(pid):
                out[pid] = p
        except psutil.Error:
            continue
    return out


def wait_gone(finder, timeout: float = 3.0) -> None:
    """Give processes already killed (a whole namespace dying) time to go, so they are not counted twice."""
    deadline = time.monotonic() + timeout
    while _alive(finder()) and time.monotonic() < deadline:
        time.sleep(0.05)


def kill_all(finder, rounds: int = 50) -> list[int]:
    """Stop everything `finder()` returns until nothing new appears, then kill: a fork bomb cannot outrun it."""
    stopped: dict[int, psutil.Process] = {}
    for _ in range(rounds):
        new = {pid: p for pid, p in _alive(finder()).items() if pid not in stopped}
        if not new:
            break
        for pid, p in new.items():
            try:
                p.send_signal(signal.SIGSTOP)
            except psutil.Error:
                pass
            stopped[pid] = p
    for p in stopped.values():
        try:
            p.send_signal(signal.SIGKILL)
        except psutil.Error:
            pass
    deadline = time.monotonic() + 2.0
    for p in stopped.values():
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except (psutil.Error, psutil.TimeoutExpired):
            pass
    return sorted(stopped)


def task_count(pids) -> int:
    """Threads of the processes, each thread counted: RLIMIT_NPROC and the kernel's pid space count threads too."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rpartition(b")")[2].split()
            total += int(fields[17])  # num_threads: field 20 of stat, the 18th after the command name
        except (OSError, IndexError, ValueError):
            continue
    return total
