"""Disk room: what a session may use, what a run needs free before it starts an attempt, and how a full disk is
told apart from a model's failure.

A session's own use (its work folder plus its private HOME and /tmp) is capped by the disk watchdog
(Limits.disk_bytes): going over is the model's doing and ends the session like the memory limit does. An attempt
starts only with that budget plus a reserve free, so one session alone cannot fill the disk; when the disk still
runs (nearly) full during an attempt, something else did it, and the attempt is an infra failure, never a score."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox.engine.stops import DiskFull
from sandbox.isolation.trees import Walk

__all__ = ["DiskFull", "FLOOR_BYTES", "RESERVE_BYTES", "ensure_room", "free_bytes", "ran_full", "usage", "used_bytes"]

MB = 1024**2
RESERVE_BYTES = 256 * MB  # on top of a session's budget: records, grading, the hidden test's own files
FLOOR_BYTES = 32 * MB  # below this the disk counts as full: writes may have failed, so outcomes cannot be trusted
MAX_COUNTED_ENTRIES = 2_000_000  # names one count visits (about 2-4 s); no real work folder comes near it


def free_bytes(path: Path) -> int:
    """Free bytes for an unprivileged writer on the file system holding `path` (or its nearest existing parent)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    st = os.statvfs(p)
    return st.f_bavail * st.f_frsize


def used_bytes(*roots: Path) -> int:
    """Disk blocks in use under the roots (sparse files count what they occupy), without following links."""
    return usage(*roots)[0]


def usage(*roots: Path, max_entries: int = MAX_COUNTED_ENTRIES) -> tuple[int, str | None]:
    """used_bytes, and why the count is short (None: every name was counted). A tree too deep for a path or
    os.walk is counted all the same (trees.py); only the caps on entries and open folders cut it short, and
    the caller decides what a count it cannot finish means."""
    total, short = 0, None
    for root in roots:
        walk = Walk(Path(root), max_entries=max_entries)
        for e in walk:  # a root that is gone, or not a folder, counts nothing: the session may be deleting
            total += e.st.st_blocks * 512
        short = short or walk.truncated
    return total, short


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
