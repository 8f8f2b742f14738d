"""The seccomp filter every sandboxed process runs under: no process may trace another or reach into its memory.

Everything in one sandbox runs as one uid, and where no Yama module restricts ptrace (these machines have none)
the kernel lets a process attach to any other of its uid or read and write its memory. A model's command could so
rewrite what pi reports (turns, tokens, its final message, a connection error it never had). The filter answers
these calls with EPERM for every process of the sandbox, whoever owns the target:

- ptrace; process_vm_readv / process_vm_writev (another process's memory without attaching);
- process_madvise (act on another process's memory), pidfd_getfd (copy another process's file descriptor, e.g.
  pi's connection to the model), kcmp (compare two processes' kernel objects), perf_event_open (sample another
  process).

/proc/PID/mem is a file, which a filter on calls cannot tell apart: pi and its relay are kept out of its reach by
being non-dumpable (sandbox/agents/pi.py, sandbox/agents/netrelay.py).

The filter is compiled by libseccomp (pyseccomp over Debian's libseccomp2) and handed to bwrap as an open file
(`--seccomp FD`); bwrap loads it into the sandbox right before the command starts.
"""

from __future__ import annotations

import atexit
import errno
import os
import tempfile
import threading
from pathlib import Path

DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp",
          "perf_event_open")

_lock = threading.Lock()
_path: Path | None = None


def filter_bpf() -> bytes:
    """The compiled filter (classic BPF, as bwrap's --seccomp takes it)."""
    import pyseccomp  # only where a sandbox is built: importing sandbox.isolation.bwrap needs no libseccomp

    f = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    # A 64-bit kernel also runs 32-bit calls (int 0x80, x32): without their tables in the filter those are killed
    # outright (libseccomp's bad-arch action); with them, 32-bit programs run and meet the same refusals.
    compat = {pyseccomp.Arch.X86_64: (pyseccomp.Arch.X86, pyseccomp.Arch.X32),
              pyseccomp.Arch.AARCH64: (pyseccomp.Arch.ARM,)}
    for arch in compat.get(pyseccomp.system_arch(), ()):
        f.add_arch(arch)
    for name in DENIED:
        f.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
    with tempfile.TemporaryFile() as fh:
        f.export_bpf(fh)
        fh.seek(0)
        return fh.read()


def filter_path() -> Path:
    """The filter in a file of this process's own, for the launcher to open. Written again should it be gone (a
    temp cleaner), removed when the process that wrote it exits (not when a fork of it does)."""
    global _path
    with _lock:
        if _path is None or not _path.exists():
            fd, name = tempfile.mkstemp(prefix="kbench-seccomp-", suffix=".bpf")
            with os.fdopen(fd, "wb") as fh:
                fh.write(filter_bpf())
            _path = Path(name)
            atexit.register(_remove, _path, os.getpid())
        return _path


def _remove(path: Path, owner: int) -> None:
    if os.getpid() == owner:
        path.unlink(missing_ok=True)


def with_filter(argv: list[str]) -> list[str]:
    """A bwrap command line that loads the filter. bwrap takes it as an open descriptor, which a plain Popen does
    not pass on: bash opens the file on a descriptor no one else uses (the lowest free from 10 up, whatever the
    caller passes in pass_fds) and then becomes bwrap (same pid, same session)."""
    script = 'exec {fd}<"$0" && exec "$1" --seccomp "$fd" "${@:2}"'
    return ["/bin/bash", "-c", script, str(filter_path()), *argv]
