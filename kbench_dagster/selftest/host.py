"""The host after the selftest: what the attacks may have left outside their sandboxes.

Three looks: a process of a sandbox uid that no session holds (it outlived its session); an entry new since the
start at the top of /tmp, HOME and the folders holding the work and runs roots that an attack made (everything an
attack writes carries the selftest's marker in its name or its first bytes; other programs on a shared machine, other
kbench runs among them, make new entries too, and those are only counted); and the API key in any file of the
selftest's runs.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from sandbox.isolation import uids

HEAD_BYTES = 64 * 1024  # of a new file, looked at for the marker
MAX_LOOKED_AT = 2000  # entries of a new folder looked at for the marker or a sandbox owner
KEY_FILE_BYTES = 16 * 1024 * 1024  # a record file is at most 10 MB; more than this is not a record


def _places(work: Path, runs: Path) -> list[Path]:
    return sorted({Path("/tmp"), Path.home(), work.resolve().parent, runs.resolve().parent})


def _listing(places: list[Path]) -> set[Path]:
    found = set()
    for place in places:
        try:
            with os.scandir(place) as it:
                found.update(Path(e.path) for e in it)
        except OSError:
            continue
    return found


def _strays() -> set[tuple[int, float]]:
    out = set()
    for p in uids.pool().strays():
        try:
            out.add((p.pid, p.create_time()))
        except psutil.Error:
            continue
    return out


@dataclass
class HostBefore:
    work: Path
    runs: Path
    entries: set[Path] = field(default_factory=set)
    strays: set[tuple[int, float]] = field(default_factory=set)


@dataclass
class HostAfter:
    processes: list[str]  # "pid N uid U: cmdline" of each process that outlived its session
    made: list[str]  # new entries an attack made
    other_new: int  # new entries made by something else on the machine
    key_hits: list[str]  # files under the runs folder holding the key

    @property
    def clean(self) -> bool:
        return not (self.processes or self.made or self.key_hits)


def before(work: Path, runs: Path) -> HostBefore:
    excluded = {work.resolve(), runs.resolve()}
    entries = {p for p in _listing(_places(work, runs)) if p.resolve() not in excluded}
    return HostBefore(work, runs, entries, _strays())


def _attack_made(path: Path, marker: bytes) -> bool:
    """Whether an attack made this entry: the marker in its name or first bytes (or, for a folder, in those of
    any of its first entries)."""
    todo, looked = [path], 0
    while todo and looked < MAX_LOOKED_AT:
        p = todo.pop()
        looked += 1
        if marker in os.fsencode(p.name):
            return True
        if p.is_symlink():
            continue
        if p.is_dir():
            try:
                todo.extend(Path(e.path) for e in os.scandir(p))
            except OSError:
                continue
        elif p.is_file():
            try:
                with open(p, "rb", opener=lambda f, fl: os.open(f, fl | os.O_NONBLOCK | os.O_NOFOLLOW)) as fh:
                    if marker in fh.read(HEAD_BYTES):
                        return True
            except OSError:
                continue
    return False


def _key_hits(runs: Path, key: bytes) -> list[str]:
    hits = []
    for root, _dirs, files in os.walk(runs):  # never follows a link; the records' final files hold agent trees
        for name in files:
            p = Path(root) / name
            try:
                if p.is_symlink() or not p.is_file() or p.stat().st_size > KEY_FILE_BYTES:
                    continue
                if key in p.read_bytes():
                    hits.append(str(p))
            except OSError:
                continue
    return hits


def after(start: HostBefore, marker: str, key: str, runs_looked_at: list[Path], settle_s: float = 5.0) -> HostAfter:
    """The three looks. A process of a sandbox uid gets settle_s to finish dying before it counts as a stray."""
    deadline = time.monotonic() + settle_s
    while True:
        left = [s for s in _strays() if s not in start.strays]
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.2)
    processes = []
    for pid, _ in left:
        try:
            p = psutil.Process(pid)
            processes.append(f"pid {pid} uid {p.uids().real}: {' '.join(p.cmdline())[:120] or p.name()}")
        except psutil.Error:
            continue
    excluded = {start.work.resolve(), start.runs.resolve()}
    new = [p for p in _listing(_places(start.work, start.runs)) - start.entries if p.resolve() not in excluded]
    made = sorted(str(p) for p in new if _attack_made(p, marker.encode()))
    hits = [h for run in runs_looked_at for h in _key_hits(run, key.encode())]
    return HostAfter(processes, made, len(new) - len(made), hits)
