"""A program witness: the programs the kernel executed in a session, each resolved to the system's own program
(rule 5 of the judging boundary).

The session runs under strace on the host (`tracer`), which writes every execve the kernel was asked for, with
its result, to a file of the judge's that no process of the session can reach. A name the shell resolves (a
function, an alias, `hash -p`, a script or link earlier on PATH, `exec -a`) leaves either no execve at all or one
of a path that is not the program's, so only the kernel's record counts, and only after the judge's own launcher
has started the commands' shell (the first execve carrying the run's mark).

An executed path witnesses the program NAME only when it is written as a plain absolute path directly in a system
folder, names NAME, and reaches a regular file under /usr (or /bin, /sbin) through links that keep the name, go
through the system's alternatives (/usr/bin/awk -> /etc/alternatives/awk -> /usr/bin/mawk) or are Debian's own
renames (/usr/bin/fdfind -> /usr/lib/cargo/bin/fd): a link named `rg` to
echo is echo, and a copy or a script in the work folder or /tmp is nobody's program.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from sandbox.isolation.bwrap import SYSTEM_PATH

SYSTEM_DIRS = frozenset(SYSTEM_PATH.split(":")) | {"/usr/local/sbin", "/usr/sbin", "/sbin"}
SYSTEM_ROOTS = ("/usr/", "/bin/", "/sbin/")  # read-only in the sandbox and the same files on the host
ALTERNATIVES = "/etc/alternatives"
MAX_LINKS = 8
# Programs Debian ships under another name than upstream's, as a link from the system folder to the upstream
# binary kept outside it: the link is the distribution's own, so the program answers to the Debian name.
RENAMED = {"fdfind": "/usr/lib/cargo/bin/fd"}
MAX_TRACE_BYTES = 8 << 20  # a flood of execs past this is cut: what it hides is only the flood's own witness

# strace writes one line per call, each led by the pid; a string's quotes, backslashes and newlines are escaped,
# so a command's own arguments can neither end a line nor close the path's quotes.
_STR = r'(?:[^"\\]|\\.)*'  # the inside of a quoted string
_CALL = re.compile(rf'^(\d+) +execve\("({_STR})", ')
_RESUMED = re.compile(r"^(\d+) +<\.\.\. execve resumed>")
_RESULT = re.compile(r"\) += (-?\d+)(?: [A-Z][A-Z0-9_]* \([^()]*\))?$")


class NoWitness(RuntimeError):
    """The trace cannot be had or read: the harness's failure (infra), never the model's."""


def tracer(trace_file: Path) -> list[str]:
    """The host-side command prefix that records every execve of a session into `trace_file`."""
    strace = shutil.which("strace", path=SYSTEM_PATH)
    if strace is None:
        raise NoWitness("the shell trials' witness of what ran is the kernel's record of execve, taken by strace, "
                        "which is not installed (apt-get install strace)")
    # --seccomp-bpf: only execve stops the traced processes, the rest of their calls run at full speed
    return [strace, "-f", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-e", "signal=none", "-o", str(trace_file),
            "--"]


def executed(trace: str, mark: str) -> list[str]:
    """The paths of the successful execve calls after the commands' shell started: the first `SHELL -c SCRIPT
    MARK` (the launcher's own calls before it carry the mark further along their arguments, and are left out)."""
    shell = re.compile(rf'^\d+ +execve\("{_STR}", \["{_STR}", "-c", "{_STR}"(?:\.\.\.)?, "{re.escape(mark)}"\], ')
    paths, pending, started = [], {}, False
    for line in trace.splitlines():
        call, resumed = _CALL.match(line), _RESUMED.match(line)
        if call:
            pid, path, head = *call.groups(), line
        elif resumed and resumed.group(1) in pending:  # the call's start was written before another's
            pid = resumed.group(1)
            path, head = pending.pop(pid)
        else:
            continue
        if line.endswith("<unfinished ...>"):
            pending[pid] = (path, head)
            continue
        result = _RESULT.search(line)
        if not result or result.group(1) != "0":
            continue
        if started:
            paths.append(path)
        elif shell.match(head):
            started = True
    if not started:
        raise NoWitness("the execve trace never shows the commands' shell starting: the tracer failed")
    return paths


def program_of(path: str) -> str | None:
    """The program an executed path witnesses, or None when it is not a system program under its own name."""
    if "\\" in path or not path.startswith("/"):
        return None  # an escaped byte or a path relative to a folder the judge does not know
    folder, name = os.path.split(path)
    if folder not in SYSTEM_DIRS or not name or name in (".", ".."):
        return None
    return name if _keeps_name(path, name) else None


def _keeps_name(path: str, name: str) -> bool:
    for _ in range(MAX_LINKS):
        if not os.path.islink(path):
            return _system_file(path)
        target = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
        if RENAMED.get(name) == target:
            return _system_file(target)
        if os.path.dirname(target) == ALTERNATIVES:
            # the system's own choice among programs that answer to this name: trusted as the program
            return os.path.basename(target) == name and _system_file(target)
        if os.path.basename(target) != name:
            return False
        path = target
    return False


def _system_file(path: str) -> bool:
    real = os.path.realpath(path)
    return real.startswith(SYSTEM_ROOTS) and os.path.isfile(real) and os.access(real, os.X_OK)


def programs(trace_file: Path, mark: str) -> frozenset[str]:
    """The system programs the kernel executed after the commands' shell started."""
    try:
        with open(trace_file, "rb") as fh:
            data = fh.read(MAX_TRACE_BYTES)
    except OSError as exc:
        raise NoWitness(f"the execve trace cannot be read: {exc.strerror}") from None
    if len(data) == MAX_TRACE_BYTES:
        data = data[:data.rfind(b"\n") + 1]  # the line the cap cut in two is not read as a call
    return frozenset(filter(None, map(program_of, executed(data.decode("utf-8", errors="replace"), mark))))
