"""What the end of a bwrap session kills, on the record.

In its own pid namespace a session ends when its command does: bwrap's init exits and the kernel kills whatever
was still running there (a daemon the agent left, a `sleep &` of a tool call) before the harness can look, so
those kills left no trace. The command therefore runs under a small bash script that, once the command has ended,
writes the processes still alive in the namespace to a pipe only the harness reads; the command itself never
holds that pipe. If the session's own processes kill that script, the report is missing and the record says so.
"""

from __future__ import annotations

import os

MAX_REPORT_BYTES = 64 * 1024
SHOWN = 200  # processes named in the report; the rest are counted

# The command is "$@"; {fd} is the pipe. /proc is the namespace's own, so it lists the session only.
_SCRIPT = r"""
"$@" {fd}>&-
rc=$?
n=0
for p in /proc/[0-9]*; do
  p=${{p#/proc/}}
  if [ "$p" = 1 ] || [ "$p" = $$ ]; then continue; fi
  n=$((n+1))
  if [ $n -le {shown} ]; then
    name=?
    {{ read -r name < /proc/$p/comm; }} 2>/dev/null
    printf '%s %s\n' "$p" "$name" >&{fd}
  fi
done
printf 'end %s\n' "$n" >&{fd}
exit $rc
"""


class TeardownReport:
    """A pipe for one session: `wrap(cmd)` is the command line to run instead of cmd (with `fd` passed to the
    child), `read()` after the session ends gives the processes its end killed."""

    def __init__(self):
        self._r, self.fd = os.pipe()  # neither end inheritable: the child gets `fd` through pass_fds only

    def wrap(self, cmd: list[str]) -> list[str]:
        script = _SCRIPT.format(fd=self.fd, shown=SHOWN)
        # bash, not sh: dash reads "12>&-" as the word 12 and a close of stdout (it takes one-digit fds only)
        return ["/bin/bash", "-c", script, "kbench-session", *cmd]

    def started(self) -> None:
        """The child holds its copy now: close ours, so the pipe ends when the session's script does."""
        os.close(self.fd)

    def read(self) -> tuple[list[tuple[int, str]], int, bool]:
        """(pid inside the sandbox, name) of the processes named, how many there were in all, and whether the report
        arrived whole (False: the script was killed before it could write it, e.g. by the session itself)."""
        os.set_blocking(self._r, False)
        data = b""
        try:
            while len(data) < MAX_REPORT_BYTES and (chunk := os.read(self._r, MAX_REPORT_BYTES)):
                data += chunk
        except BlockingIOError:  # a process outside the namespace still holds the pipe: take what is there
            pass
        finally:
            os.close(self._r)
        named, total, whole = [], 0, False
        for line in data.decode("utf-8", "backslashreplace").splitlines():
            head, _, rest = line.partition(" ")
            if head == "end" and rest.isdigit():
                total, whole = int(rest), True
            elif head.isdigit():
                named.append((int(head), rest))
        return named, max(total, len(named)), whole

    def close(self) -> None:
        for fd in (self._r, self.fd):
            try:
                os.close(fd)
            except OSError:
                pass
