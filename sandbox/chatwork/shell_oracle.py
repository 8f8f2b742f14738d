"""The shell trials' commands, run for real: in our sandbox, over the trial's files, traced.

The model's commands run one after another in one bash, in a fresh folder holding the trial's files, with no
network. bash's trace (set -x, written to a descriptor the oracle reads, not to the output) names every simple
command that ran, so the oracle can ask for a witness: the program the trial is about must appear in it. Printing
the expected bytes, or writing the expected file by hand, leaves no such line. The trace is evidence against
no-knowledge shortcuts, not a wall against a hostile model: a command could read the run's trace mark (PS4) and
write a line of its own to the descriptor. A run past its time is a safety stop (the verdict is timeout), never a
wrong answer.
"""

from __future__ import annotations

import secrets
import shlex
from pathlib import Path

from sandbox.engine.reply_cache import ReplyCache
from sandbox.isolation.bwrap import CONTAINED, IsolationConfig
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import fresh_dir
from task_defs.trials.grading import ShellRun

TIMEOUT_S = 20.0  # a safety stop: these commands do seconds of work at most on a loaded machine
MAX_READ = 256 * 1024
OUT = "/kbench-shell"  # where the driver leaves stdout and the trace, outside the commands' folder
# The driver's head; then one line per command (driver()). The commands come from the environment
# (KB_CMD_1..N, never pasted into the script), and the driver keeps no variable of its own between them that a
# command could overwrite (a loop counter would be one).
HEAD = """exec 1>"$KB_OUT/stdout" 7>"$KB_OUT/trace"
BASH_XTRACEFD=7
PS4="$KB_MARK "
set -x
"""


def driver(n: int) -> str:
    return HEAD + "".join(f'eval "$KB_CMD_{i}"\n' for i in range(1, n + 1))


def programs_in(trace: str, mark: str) -> set[str]:
    """The programs of the simple commands a bash trace shows, each line led by the run's own mark (its first
    character repeated once per level of nesting): `M wc -l f`, `MM sort x`, `M LC_ALL=C sort x`. Lines without
    the mark continue an entry whose text spans lines (the eval of a command that holds a newline), and are never
    read as commands of their own: a command cannot forge a trace line by holding the text of one. The driver's own
    loop is left out by name."""
    found = set()
    lead, rest = mark[0], mark[1:] + " "
    for line in trace.splitlines():
        body = line.lstrip(lead)
        if body == line or not body.startswith(rest):
            continue
        body = body[len(rest):]
        try:
            words = shlex.split(body)
        except ValueError:
            words = body.split()
        words = [w for w in words if not (("=" in w) and w.split("=", 1)[0].isidentifier())]
        if words:
            found.add(Path(words[0]).name)
    return found - {"eval"}


class SandboxShell:
    """Runs a shell trial's commands for the oracle; one folder per call under `root`."""

    def __init__(self, root: Path, cfg: IsolationConfig | None = None, timeout_s: float = TIMEOUT_S):
        # made for every graded trial, used only by a shell trial's: nothing is built until it runs
        self.root, self.cfg, self.timeout_s = root, cfg or IsolationConfig(), timeout_s

    def __call__(self, files: dict[str, str], commands: list[str], read: str | None = None) -> ShellRun:
        """Run `commands` over `files`; `read`: a file of the folder whose text the oracle checks afterwards."""
        root = Path(self.root)
        work, out = fresh_dir(root / "shell"), fresh_dir(root / "shell-out")
        try:
            for rel, text in files.items():
                path = work / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            out.chmod(0o777)  # the sandbox's own uid writes there
            work.chmod(0o777)
            mark = "+" + secrets.token_hex(8)  # unknown to the commands before they run
            env = {"KB_OUT": OUT, "KB_MARK": mark,
                   **{f"KB_CMD_{i}": c for i, c in enumerate(commands, 1)}}
            isolated = self.cfg.resolve() in CONTAINED
            if not isolated:
                env["KB_OUT"] = str(out)
            res = run_session(["bash", "-c", driver(len(commands))], work,
                              limits=TEST_LIMITS.with_(timeout_s=self.timeout_s), cfg=self.cfg, env=env,
                              rw_binds=[(out, OUT)] if isolated else [], label="shell-trial", network=False)
            return ShellRun(stdout=_read(out / "stdout") or "", exit_code=res.returncode,
                            programs=frozenset(programs_in(_read(out / "trace") or "", mark)),
                            file_text=_read(work / read) if read else None, timed_out=res.timed_out)
        finally:
            remove_tree(out, ignore_errors=True)
            remove_tree(work, ignore_errors=True)


class CachedShell:
    """A shell runner that keeps what each finished run left, keyed by everything that decides it (the trial's
    files, the commands, the file read, the driver, the sandbox kind and limits), so a strike run again over the
    same cached replies does not run the same commands in a sandbox again. A run cut off by its time is never kept:
    a safety stop says nothing about the commands, and the next time they run again."""

    def __init__(self, shell: SandboxShell, cache: ReplyCache):
        self.shell, self.cache = shell, cache

    def __call__(self, files: dict[str, str], commands: list[str], read: str | None = None) -> ShellRun:
        keyed = {"shell": driver(len(commands)), "files": files, "commands": commands, "read": read,
                 "isolation": self.shell.cfg.resolve(), "timeout_s": self.shell.timeout_s, "limits": repr(TEST_LIMITS)}
        key = self.cache.key(keyed)
        kept = self.cache.get(key, keyed)
        if kept is not None:
            return ShellRun(kept["stdout"], kept["exit_code"], frozenset(kept["programs"]), kept["file_text"])
        run = self.shell(files, commands, read)
        if not run.timed_out:
            self.cache.put(key, {"stdout": run.stdout, "exit_code": run.exit_code, "programs": sorted(run.programs),
                                 "file_text": run.file_text})
        return run


def _read(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as f:
            return f.read(MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return None
