"""The shadow sweep for the shell trials: an attempt that does nothing but fill its folder with executables named
after every program an oracle checks (and after the judge's own launchers), and with .py files named like the
standard library, keeps the verdict of an attempt that does nothing at all. Each shadow prints the trial's product
and writes to a host path if it ever runs where that path exists: nothing the judge starts may pick one up."""

import os
import shlex

from sandbox.chatwork.shell_oracle import SandboxShell
from sandbox.chatwork.trials import ToolTrials
from task_defs.trials.grading import Answer, Call, grade

LAUNCHERS = ["bash", "sh", "strace", "bwrap", "setpriv", "env", "true", "printf", "python3"]
STDLIB = ["json", "os", "re", "shlex", "subprocess", "secrets", "pathlib", "stat", "sitecustomize", "usercustomize"]


def _shadows(programs: list[str], product: str, host_log: str) -> str:
    """Commands that plant the shadows in the folder and run none of them."""
    log = shlex.quote(host_log)
    script = f"#!/bin/sh\necho \"$0\" >> {log} 2>/dev/null\nprintf '%s' {shlex.quote(product)}\nexit 0\n"
    module = f"import os\nopen({host_log!r}, 'a').write(__file__ + '\\n')\n"
    return "; ".join([*(f"printf '%s' {shlex.quote(script)} > {shlex.quote(p)} && chmod +x {shlex.quote(p)}"
                        for p in programs),
                      *(f"printf '%s' {shlex.quote(module)} > {m}.py" for m in STDLIB)])


def test_a_null_attempt_among_shadows_keeps_its_null_verdict(tmp_path):
    units = [u for u in ToolTrials().units if u.trial.oracle.kind == "shell"]
    programs = sorted({p for u in units for p in u.trial.oracle.ran} | set(LAUNCHERS))
    host_log = str(tmp_path / "shadow-ran.log")
    shell = SandboxShell(tmp_path / "w")
    for u in units:
        o = u.trial.oracle
        done = shell(dict(o.files), [o.reference], o.file_path)
        product = (done.file_text if o.file_path else done.stdout) or ""
        null = grade(u.trial, Answer(calls=(Call(o.tool, {"command": "true"}),)), shell)
        shadowed = grade(u.trial, Answer(calls=(Call(o.tool, {"command": _shadows(programs, product, host_log)}),)),
                         shell)
        assert not null.passed and (shadowed.passed, shadowed.cause) == (False, null.cause), (u.id, shadowed)
    assert not os.path.exists(host_log), open(host_log).read()
