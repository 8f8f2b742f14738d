"""Every process a verification command started is gone before its outcome is read (rule 2 of the judging boundary).

A check's command (Harbor's test.sh, a SWE record's FAIL_TO_PASS, a fixture's check) runs the agent's programs, and
a program can leave a process behind (`&`, `setsid`, a double fork) that rewrites the reward file after test.sh
wrote its own, or alters a file a later case reads. So the command runs under `REAP`, a few lines of Python given
as `-c` code to an isolated interpreter (`python3 -I -S`: nothing of the work folder or the variables is imported):
it makes itself a child subreaper, so every orphan of the command is reparented to it rather than escaping to the
sandbox's init, runs the command, and once the command has exited kills every remaining descendant and reaps it
before it exits itself with the command's status. What reads the outcome runs only after that.

A process that writes while the command is still running is the command's own business: only what outlives it is
stopped.
"""

REAP = r"""
import ctypes, os, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("kbench reaper: cannot become a child subreaper (errno %d)" % ctypes.get_errno())
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
status = os.waitpid(pid, 0)[1]
me = str(os.getpid()).encode()
while True:
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % entry, "rb") as fh:
                if fh.read().rpartition(b")")[2].split()[1] == me:
                    os.kill(int(entry), 9)
        except (OSError, IndexError):
            pass
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
"""


def reaped(argv: list[str]) -> list[str]:
    """`argv` run under the reaper: its status is argv's, and nothing it started outlives it."""
    return ["python3", "-I", "-S", "-c", REAP, *argv]
