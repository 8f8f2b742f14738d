"""The limits every sandboxed session runs under; each one is configurable."""

from __future__ import annotations

from dataclasses import dataclass, replace

GB = 1024**3
MB = 1024**2


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 600.0
    # Memory watchdog, for the session as a whole (sandbox/isolation/accounting.py): its processes' anonymous memory and
    # swap, by proportional share, plus each shared-memory object (memfd, shared mappings, tmpfs files) once. A
    # process that alone holds more is killed; a session over it in total is killed whole. The name is kept
    # for the CLI and earlier manifests, when it capped one process's resident size.
    rss_limit_bytes: int = 2 * GB
    mem_poll_s: float = 2.0
    # Process watchdog: kill the whole session above this many tasks, every thread of every process counted (the
    # kernel's RLIMIT_NPROC and pid space count threads). A numpy or torch process starts a thread per core.
    max_procs: int = 500
    proc_poll_s: float = 0.2
    # RLIMIT_NPROC backstop for the watchdog. Each session runs as its own uid (uids.py), so this is one
    # session's budget, no longer shared: sessions at once times this must stay under the kernel's pid_max.
    nproc_rlimit: int = 2000
    fsize_bytes: int = 1 * GB  # RLIMIT_FSIZE: the largest file one process may write
    max_output_bytes: int = 1 * MB  # output kept in the log file; the rest is drained and counted
    # disk watchdog: the work folder, the session's HOME and /tmp and any other writable bind, together, plus
    # files the session deleted but still holds open
    disk_bytes: int = 2 * GB
    disk_poll_s: float = 1.0
    # Model requests an agent session may make (a task's max_steps); None: only the time limit ends it. The builtin
    # agent stops asking; pi's proxy refuses the next request. Either way the session ends and the work is graded.
    max_turns: int | None = None

    def with_(self, **changes) -> Limits:
        return replace(self, **changes)


AGENT_LIMITS = Limits()
TEST_LIMITS = Limits(timeout_s=90.0, fsize_bytes=20 * MB)
