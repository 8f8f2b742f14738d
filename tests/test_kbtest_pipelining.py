"""kbtest.py pipelines agent calls whose value a statement throws away, by reading the judge's bytecode. These
tests hold it to that on the Python the grader runs, and to a loud refusal on a Python whose bytecode it does not
know (a silent fallback would make every 10^5-call test slow, a wrong reading would skip waits it needs)."""

import subprocess
from pathlib import Path

from sandbox.isolation.bwrap import sandbox_python
from sandbox.tasks.grading import HARNESS

NONCE = "0123456789abcdef0123456789abcdef"

AGENT = '''
open("imported", "w").close()


class Box:
    def boom(self):
        raise ValueError("boom")

    def __len__(self):
        raise ValueError("no len")
'''

# A dropped call's exception can only surface later, at the case's end; a waited-for one ends the case at the
# call. So the line after the call shows whether the judge waited.
PIPELINED = '''
import kbtest as kb

m = kb.load("agent.py")


@kb.case
def method_statement():
    b = m.Box()
    b.boom()
    print("AFTER method_statement")


@kb.case
def len_statement():
    b = m.Box()
    len(b)
    print("AFTER len_statement")


@kb.case
def used_value():
    b = m.Box()
    x = b.boom()
    print("AFTER used_value", x)

kb.main()
'''

UNKNOWN_PYTHON = '''
import sys

import kbtest as kb

sys.version_info = (3, 99, 1, "final", 0)
m = kb.load("agent.py")
'''


def _judge(tmp_path: Path, test: str, agent: str = AGENT) -> subprocess.CompletedProcess:
    """The hidden test `test` run by the harness (unsandboxed) against agent.py holding `agent`."""
    hidden, wd = tmp_path / "hidden", tmp_path / "work"
    hidden.mkdir()
    wd.mkdir()
    (hidden / "kbtest.py").write_text(HARNESS.read_text())
    (hidden / "test_task.py").write_text(test)
    (wd / "agent.py").write_text(agent)
    return subprocess.run([sandbox_python(), "-B", "-E", "-s", str(hidden / "test_task.py")], cwd=wd,
                          input=NONCE + "\n", capture_output=True, text=True, timeout=60)


def test_statements_that_discard_an_agent_call_are_pipelined_on_the_graders_python(tmp_path):
    p = _judge(tmp_path, PIPELINED)
    out = p.stdout + p.stderr
    assert f"KBTEST-RESULT {NONCE} crash" in p.stdout, out
    for case in ("method_statement", "len_statement"):
        assert f"AFTER {case}" in p.stdout, out
        assert f"CRASH {case}: an earlier call raised ValueError" in p.stdout, out
    assert "AFTER used_value" not in p.stdout, out  # a value the test keeps is always waited for
    assert "CRASH used_value:" in p.stdout, out


def test_load_refuses_a_python_whose_bytecode_it_does_not_know(tmp_path):
    p = _judge(tmp_path, UNKNOWN_PYTHON)
    out = p.stdout + p.stderr
    assert p.returncode == 2 and f"KBTEST-RESULT {NONCE} crash" in p.stdout, out
    assert "RuntimeError: kbtest.py: load() pipelines calls by reading the bytecode of cpython 3.11" in out, out
    assert "this is cpython 3.99.1" in out and "_PIPELINE_PYTHONS" in out, out
    assert not (tmp_path / "work" / "imported").exists()  # refused before any agent code ran
