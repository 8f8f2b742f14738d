"""The limits every sandboxed session runs under; each one is configurable."""

from __future__ import annotations

from dataclasses import dataclass, replace

GB = 1024**3
MB = 1024**2


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 600.0
    rss_limit_bytes: int = 2 * GB  # memory watchdog: kill any process above this resident size
    mem_poll_s: float = 2.0
    max_procs: int = 200  # process watchdog: kill the whole session above this many processes
    proc_poll_s: float = 0.2
    nproc_rlimit: int = 6000  # RLIMIT_NPROC backstop for the watchdog
    fsize_bytes: int = 1 * GB  # RLIMIT_FSIZE: the largest file one process may write
    max_output_bytes: int = 1 * MB  # output kept in the log file; the rest is drained and counted
    disk_bytes: int = 2 * GB  # disk watchdog: the work folder plus the session's HOME and /tmp, together
    disk_poll_s: float = 1.0

    def with_(self, **changes) -> Limits:
        return replace(self, **changes)


AGENT_LIMITS = Limits()
TEST_LIMITS = Limits(timeout_s=90.0, fsize_bytes=20 * MB)
