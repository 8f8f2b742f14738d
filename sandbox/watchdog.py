"""The memory, process and disk watchdogs of one session, and the log of every kill."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from sandbox.diskspace import used_bytes
from sandbox.limits import Limits
from sandbox.procs import kill_all

_LOG_LOCK = threading.Lock()
DISK_COST_FACTOR = 20  # the next disk count waits at least 20 times as long as the last one took


@dataclass
class Kill:
    reason: str  # rss | procs | disk | timeout | sweep | cleanup
    pid: int
    detail: str


@dataclass
class Watchdog:
    """Polls a session: kills a process above the RSS limit; kills the whole session above max_procs, or when
    its folders (`disk_roots`: the work folder, its HOME and /tmp) hold more than disk_bytes."""

    finder: object  # () -> dict[pid, psutil.Process]
    hard_kill: object  # () -> None: the fast, whole-session kill (process group / pid namespace)
    limits: Limits
    label: str
    log_path: Path | None = None
    disk_roots: tuple[Path, ...] = ()
    kills: list[Kill] = field(default_factory=list)
    session_killed: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> Watchdog:
        self._thread = threading.Thread(target=self._loop, name=f"watchdog-{self.label}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def record(self, reason: str, pid: int, detail: str) -> None:
        self.kills.append(Kill(reason, pid, detail))
        if self.log_path is not None:
            line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {self.label} kill pid={pid} reason={reason} {detail}\n"
            with _LOG_LOCK, open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write(line)

    def kill_session(self, reason: str, detail: str) -> None:
        if self.session_killed is None:
            self.session_killed = reason
        self.hard_kill()
        self.record(reason, 0, f"whole session: {detail}")
        self.record_many(reason, kill_all(self.finder), "straggler after the whole-session kill")

    def record_many(self, reason: str, pids: list[int], detail: str, shown: int = 20) -> None:
        """One line per pid for the first few; a count for the rest, so a fork bomb cannot flood the log."""
        for pid in pids[:shown]:
            self.record(reason, pid, detail)
        if len(pids) > shown:
            self.record(reason, 0, f"{detail}: {len(pids) - shown} more processes")

    def _loop(self) -> None:
        next_mem = time.monotonic() + self.limits.mem_poll_s
        next_disk = time.monotonic() + self.limits.disk_poll_s
        while not self._stop.wait(self.limits.proc_poll_s):
            procs = self.finder()
            if len(procs) > self.limits.max_procs:
                self.kill_session("procs", f"{len(procs)} processes > max_procs {self.limits.max_procs}")
                continue
            if time.monotonic() >= next_mem:
                next_mem = time.monotonic() + self.limits.mem_poll_s
                self._check_memory(procs)
            if self.disk_roots and not self.session_killed and time.monotonic() >= next_disk:
                t = time.monotonic()
                self._check_disk()
                # a folder of many files costs more to count: poll it less often, so counting stays under 5%
                took = time.monotonic() - t
                next_disk = time.monotonic() + max(self.limits.disk_poll_s, DISK_COST_FACTOR * took)

    def _check_disk(self) -> None:
        used = used_bytes(*self.disk_roots)
        if used > self.limits.disk_bytes:
            mib = 1024 * 1024
            self.kill_session("disk", f"its folders hold {used // mib}MiB > disk limit "
                                      f"{self.limits.disk_bytes // mib}MiB")

    def _check_memory(self, procs: dict[int, psutil.Process]) -> None:
        for pid, p in procs.items():
            try:
                rss = p.memory_info().rss
                if rss > self.limits.rss_limit_bytes:
                    name = p.name()
                    p.kill()
                    self.record("rss", pid, f"{name} rss={rss // (1024 * 1024)}MiB > {self.limits.rss_limit_bytes // (1024 * 1024)}MiB")
            except psutil.Error:
                continue
