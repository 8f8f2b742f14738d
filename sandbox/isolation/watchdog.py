"""The memory, process and disk watchdogs of one session, and the log of every kill."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from sandbox.isolation.accounting import look
from sandbox.isolation.diskspace import usage
from sandbox.isolation.limits import Limits
from sandbox.isolation.procs import kill_all, task_count

_LOG_LOCK = threading.Lock()
COST_FACTOR = 20  # the next memory or disk count waits at least 20 times as long as the last one took
MIB = 1024 * 1024


@dataclass
class Kill:
    reason: str  # rss (one process) | memory | procs | disk | timeout (whole session) | sweep | cleanup | teardown
    pid: int  # 0: the whole session, or a summary line
    detail: str
    count: int = 1  # kills this line stands for: a summary of a fork bomb's stragglers stands for many, a note for 0


@dataclass
class Watchdog:
    """Polls a session: kills a process that alone holds more than the memory limit, and the whole session when it
    holds more in total, runs more than max_procs tasks (threads counted), or its folders (`disk_roots`: the work
    folder, its HOME and /tmp, writable binds) plus the files it deleted but holds open (those of `owner`, the
    uid it runs as) take more than disk_bytes."""

    finder: object  # () -> dict[pid, psutil.Process]
    hard_kill: object  # () -> None: the fast, whole-session kill (process group / pid namespace)
    limits: Limits
    label: str
    log_path: Path | None = None
    disk_roots: tuple[Path, ...] = ()
    owner: int | None = None
    kills: list[Kill] = field(default_factory=list)
    session_killed: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _kill_lock: threading.Lock = field(default_factory=threading.Lock)
    _disk_devs: set[int] = field(default_factory=set)  # the disk roots' file systems: their files are disk, not memory
    _deleted_disk: int = 0  # from the last memory look, which reads every process's files and mappings anyway

    def start(self) -> Watchdog:
        for root in self.disk_roots:
            try:
                self._disk_devs.add(os.stat(root).st_dev)
            except OSError:
                continue
        # Two threads: counting memory and disk can take long (many processes, many files), and must never hold
        # up the task count that stops a fork bomb.
        self._threads = [threading.Thread(target=loop, name=f"watchdog-{self.label}-{part}", daemon=True)
                         for part, loop in (("tasks", self._watch_tasks), ("holdings", self._watch_holdings))]
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)

    def record(self, reason: str, pid: int, detail: str, count: int = 1) -> None:
        self.kills.append(Kill(reason, pid, detail, count))
        if self.log_path is not None:
            line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {self.label} kill pid={pid} reason={reason} {detail}\n"
            with _LOG_LOCK, open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write(line)

    def kill_session(self, reason: str, detail: str) -> None:
        with self._kill_lock:  # both watchdog threads, and the runner's timeout, may get here at once
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
            self.record(reason, 0, f"{detail}: {len(pids) - shown} more processes", count=len(pids) - shown)

    def _watch_tasks(self) -> None:
        while not self._stop.wait(self.limits.proc_poll_s):
            procs = self.finder()
            tasks = max(task_count(procs), len(procs))  # a process that went as we counted still counts once
            if tasks > self.limits.max_procs:
                self.kill_session("procs", f"{tasks} tasks (threads counted) in {len(procs)} processes > max_procs "
                                           f"{self.limits.max_procs}")

    def _watch_holdings(self) -> None:
        next_mem = time.monotonic() + self.limits.mem_poll_s
        next_disk = time.monotonic() + self.limits.disk_poll_s
        while not self._stop.wait(self.limits.proc_poll_s):
            # a session of many processes or files costs more to count: look less often, so counting stays under 5%
            if not self.session_killed and time.monotonic() >= next_mem:
                took = self._timed(self._check_memory, self.finder())
                next_mem = time.monotonic() + max(self.limits.mem_poll_s, COST_FACTOR * took)
            if self.disk_roots and not self.session_killed and time.monotonic() >= next_disk:
                took = self._timed(self._check_disk)
                next_disk = time.monotonic() + max(self.limits.disk_poll_s, COST_FACTOR * took)

    @staticmethod
    def _timed(check, *args) -> float:
        t = time.monotonic()
        check(*args)
        return time.monotonic() - t

    def _check_disk(self) -> None:
        (used, short), hidden = usage(*self.disk_roots), self._deleted_disk
        if short:  # shaped so that it cannot be counted in bounded work: what it holds below the cut is unknown
            self.kill_session("disk", f"its folders cannot be counted: {short}")
        elif used + hidden > self.limits.disk_bytes:
            held = f" (+{hidden // MIB}MiB in deleted files still open)" if hidden else ""
            self.kill_session("disk", f"its folders hold {used // MIB}MiB{held} > disk limit "
                                      f"{self.limits.disk_bytes // MIB}MiB")

    def _check_memory(self, procs: dict[int, psutil.Process]) -> None:
        limit = self.limits.rss_limit_bytes
        use = look(procs, self._disk_devs, self.owner, limit)
        self._deleted_disk = use.deleted_disk
        killed = set()
        for pid, p in procs.items():
            charge = use.charge(pid)
            if charge <= limit:
                continue
            try:
                name = p.name()
                p.kill()
            except psutil.Error:
                continue
            killed.add(pid)
            self.record("rss", pid, f"{name} holds {charge // MIB}MiB > {limit // MIB}MiB")
        total = use.total(without=killed)
        if use.uncounted:  # a tmpfs too big to walk in bounded work: what it holds is unknown, so it is not allowed
            self.kill_session("memory", f"its shared memory cannot be counted: {use.uncounted}")
        elif total > limit:
            self.kill_session("memory", f"its processes and shared memory hold {total // MIB}MiB > session memory "
                                        f"limit {limit // MIB}MiB")
