"""Disk room: what a session may use, what a run needs free before it starts an attempt, and how a full disk is
told apart from a model's failure.

A session's own use (its work folder plus its private HOME and /tmp) is capped by the disk watchdog
(Limits.disk_bytes): going over is the model's doing and ends the session like the memory limit does. An attempt
starts only with that budget plus a reserve free, so one session alone cannot fill the disk; when the disk still
runs (nearly) full during an attempt, something else did it, and the attempt is an infra failure, never a score."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox.stops import DiskFull

__all__ = ["DiskFull", "FLOOR_BYTES", "RESERVE_BYTES", "ensure_room", "free_bytes", "ran_full", "used_bytes"]

MB = 1024**2
RESERVE_BYTES = 256 * MB  # on top of a session's budget: records, grading, the hidden test's own files
FLOOR_BYTES = 32 * MB  # below this the disk counts as full: writes may have failed, so outcomes cannot be trusted


def free_bytes(path: Path) -> int:
    """Free bytes for an unprivileged writer on the file system holding `path` (or its nearest existing parent)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    st = os.statvfs(p)
    return st.f_bavail * st.f_frsize


def used_bytes(*roots: Path) -> int:
    """Disk blocks in use under the roots (sparse files count what they occupy), without following links."""
    total = 0
    stack = [Path(r) for r in roots]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(Path(entry.path))
        except OSError:  # gone, or not a folder: the session may be deleting as we count
            continue
    return total


def _mb(n: int) -> str:
    return f"{n / MB:.0f} MB"


def ensure_room(places: dict[str, Path], need: int) -> None:
    """Raise DiskFull naming the first place whose disk has less than `need` bytes free."""
    for label, path in places.items():
        free = free_bytes(path)
        if free < need:
            raise DiskFull(f"the disk holding the {label} folder {path} has {_mb(free)} free, less than the "
                           f"{_mb(need)} an attempt needs: free some space (or point --work/--runs elsewhere) "
                           "and run the same command again; finished attempts are kept")


def ran_full(places: dict[str, Path]) -> str | None:
    """Why the disk counts as having run full (free space under FLOOR_BYTES somewhere), or None."""
    for label, path in places.items():
        free = free_bytes(path)
        if free < FLOOR_BYTES:
            return f"the disk ran full during the attempt: {_mb(free)} free at the {label} folder {path}"
    return None
