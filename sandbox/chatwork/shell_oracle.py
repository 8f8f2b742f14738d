"""The shell trials' commands, run for real: in our sandbox, over the trial's files, traced.

The model's commands run one after another in one bash, in a fresh folder holding the trial's files, with no
network. bash's trace (set -x, written to a descriptor the oracle reads, not to the output) names every simple
command that ran, so the oracle can ask for a witness: the program the trial is about must appear in it. Printing
the expected bytes, or writing the expected file by hand, leaves no such line. The trace is evidence against
no-knowledge shortcuts, not a wall against a hostile model: a command that knows the descriptor could write a
line to it. A run past its time is a safety stop (the verdict is timeout), never a wrong answer.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import fresh_dir
from task_defs.trials.grading import ShellRun

TIMEOUT_S = 20.0  # a safety stop: these commands do seconds of work at most on a loaded machine
MAX_READ = 256 * 1024
OUT = "/kbench-shell"  # where the driver leaves stdout and the trace, outside the commands' folder
# Runs the commands (KB_CMD_1..N, never pasted into the script) with the trace on its own descriptor.
DRIVER = """exec 1>"$KB_OUT/stdout" 7>"$KB_OUT/trace"
BASH_XTRACEFD=7
set -x
i=1
while [ "$i" -le "$KB_N" ]; do eval "$(printenv "KB_CMD_$i")"; KB_STATUS=$?; i=$((i + 1)); done
exit "$KB_STATUS"
"""


def programs_in(trace: str) -> set[str]:
    """The programs of the simple commands a bash trace shows: `+ wc -l f`, `++ sort x`, `+ LC_ALL=C sort x`.
    The driver's own loop is left out by name."""
    found = set()
    for line in trace.splitlines():
        body = line.lstrip("+")
        if body == line or not body.startswith(" "):
            continue
        try:
            words = shlex.split(body)
        except ValueError:
            words = body.split()
        words = [w for w in words if not (("=" in w) and w.split("=", 1)[0].isidentifier())]
        if words:
            found.add(Path(words[0]).name)
    return found - {"eval", "printenv", "[", "exit"}


class SandboxShell:
    """Runs a shell trial's commands for the oracle; one folder per call under `root`."""

    def __init__(self, root: Path, cfg: IsolationConfig | None = None):
        self.root, self.cfg = Path(root), cfg or IsolationConfig()

    def __call__(self, files: dict[str, str], commands: list[str], read: str | None = None) -> ShellRun:
        """Run `commands` over `files`; `read`: a file of the folder whose text the oracle checks afterwards."""
        work, out = fresh_dir(self.root / "shell"), fresh_dir(self.root / "shell-out")
        try:
            for rel, text in files.items():
                path = work / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            out.chmod(0o777)  # the sandbox's own uid writes there
            work.chmod(0o777)
            env = {"KB_OUT": OUT, "KB_N": str(len(commands)), "KB_STATUS": "0",
                   **{f"KB_CMD_{i}": c for i, c in enumerate(commands, 1)}}
            isolated = self.cfg.resolve() == "bwrap"
            if not isolated:
                env["KB_OUT"] = str(out)
            res = run_session(["bash", "-c", DRIVER], work, limits=TEST_LIMITS.with_(timeout_s=TIMEOUT_S),
                              cfg=self.cfg, env=env, rw_binds=[(out, OUT)] if isolated else [], label="shell-trial",
                              network=False)
            return ShellRun(stdout=_read(out / "stdout") or "", exit_code=res.returncode,
                            programs=frozenset(programs_in(_read(out / "trace") or "")),
                            file_text=_read(work / read) if read else None, timed_out=res.timed_out)
        finally:
            remove_tree(out, ignore_errors=True)
            remove_tree(work, ignore_errors=True)


def _read(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as f:
            return f.read(MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return None
