"""The shell trials' commands, run for real: in our sandbox, over the trial's files, traced by the kernel's record.

The model's commands run one after another in one bash, in a fresh folder holding the trial's files, with no
network. The oracle asks for a witness: the program the trial is about must have been executed by the kernel, as
the system's own program (sandbox/judge/witness.py: strace on the host records every execve, in a file no process
of the session can reach). Printing the expected bytes, writing the expected file by hand, or a function, alias,
`hash -p`, link or script that answers to the program's name leaves no such record. What the oracle reads back
(the output, the file it checks) is read as the judge reads an agent's file: no link followed at any component, a
regular file only, size-capped; a folder link to a host file is the trial's missing file. A run past its time is
a safety stop (the verdict is timeout), never a wrong answer.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from sandbox.engine.reply_cache import ReplyCache
from sandbox.isolation.bwrap import CONTAINED, IsolationConfig
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import fresh_dir
from sandbox.judge import witness
from sandbox.judge.files import NotReadable, read_agent_text
from task_defs.trials.grading import ShellRun

TIMEOUT_S = 20.0  # a safety stop: these commands do seconds of work at most on a loaded machine
MAX_READ = 256 * 1024
OUT = "/kbench-shell"  # where the driver leaves stdout, outside the commands' folder
# The driver's head; then one line per command (driver()). The commands come from the environment
# (KB_CMD_1..N, never pasted into the script), and the driver keeps no variable of its own between them that a
# command could overwrite (a loop counter would be one). It runs builtins only: a program it executed would be
# in the kernel's record as if a command had.
HEAD = 'exec 1>"$KB_OUT/stdout"\n'
WITNESS = "execve"  # how the programs that ran are known; a cached run of another method is not reused


def driver(n: int) -> str:
    return HEAD + "".join(f'eval "$KB_CMD_{i}"\n' for i in range(1, n + 1))


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
            trace = fresh_dir(root / "shell-trace")  # the judge's own: never bound into the sandbox
            trace.chmod(0o700)
            mark = "kbench-shell-" + secrets.token_hex(8)  # the commands' shell's $0: where its execve is found
            env = {"KB_OUT": OUT, **{f"KB_CMD_{i}": c for i, c in enumerate(commands, 1)}}
            isolated = self.cfg.resolve() in CONTAINED
            if not isolated:
                env["KB_OUT"] = str(out)
            res = run_session(["bash", "-c", driver(len(commands)), mark], work,
                              limits=TEST_LIMITS.with_(timeout_s=self.timeout_s), cfg=self.cfg, env=env,
                              rw_binds=[(out, OUT)] if isolated else [], label="shell-trial", network=False,
                              tracer=witness.tracer(trace / "execve"))
            try:
                ran = frozenset() if res.timed_out else witness.programs(trace / "execve", mark)
            except witness.NoWitness as exc:  # strace's own complaint (no ptrace here, say) leads the output
                raise witness.NoWitness(f"{exc}; the session's output began {res.tail[:300]!r}") from None
            return ShellRun(stdout=_read(out, "stdout") or "", exit_code=res.returncode, programs=ran,
                            file_text=_read(work, read) if read else None, timed_out=res.timed_out)
        finally:
            remove_tree(out, ignore_errors=True)
            remove_tree(work, ignore_errors=True)
            remove_tree(root / "shell-trace", ignore_errors=True)


class CachedShell:
    """A shell runner that keeps what each finished run left, keyed by everything that decides it (the trial's
    files, the commands, the file read, the driver, the sandbox kind and limits), so a strike run again over the
    same cached replies does not run the same commands in a sandbox again. A run cut off by its time is never kept:
    a safety stop says nothing about the commands, and the next time they run again."""

    def __init__(self, shell: SandboxShell, cache: ReplyCache):
        self.shell, self.cache = shell, cache

    def __call__(self, files: dict[str, str], commands: list[str], read: str | None = None) -> ShellRun:
        keyed = {"shell": driver(len(commands)), "witness": WITNESS, "files": files, "commands": commands, "read": read,
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


def _read(folder: Path, rel: str) -> str | None:
    """What the commands left at `rel`, read as the judge reads an agent's file; None when it is missing, a link
    (at any component), not a regular file, or over the cap."""
    try:
        return read_agent_text(folder, rel, max_bytes=MAX_READ)
    except NotReadable:
        return None
