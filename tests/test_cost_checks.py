"""Hidden tests that hold on any machine: cost checks compare CPU time with the test's own solution, never seconds
of wall time, so a busy machine changes no verdict; a safety stop gives `timeout`, never `wrong`."""

import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from bundled import SUITE
from conftest import SQUARE_TOML, write_task

from sandbox.tasks.grading import grade
from sandbox.tasks.validation import grade_variant, prepare_workdir
from task_defs import load_suite

# the tasks whose hidden tests budget the work, and the shipped mutant of each that is right but too slow
TIMED = {"minstack": "scans_for_min", "lru": "list_order", "dijkstra": "scan_for_next", "minwindow": "every_start",
         "wordbreak": "plain_backtracking", "bigmul": None, "lcs": None}


@pytest.fixture
def two_hogs():
    hogs = [subprocess.Popen("exec yes > /dev/null", shell=True) for _ in range(2)]
    yield
    for h in hogs:
        h.kill()
        h.wait()


def test_budgeted_tasks_keep_their_verdicts_beside_two_cpu_hogs(two_hogs, work):
    jobs = []
    for task_id, slow in TIMED.items():
        task = SUITE.get(task_id)
        jobs.append((task, "reference", task.solution_dir))
        if slow:
            jobs.append((task, "mutant", task.folder / "mutants" / slow))
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda j: (j, grade_variant(j[0], j[1], j[2], work / j[0].id, None, None)), jobs))
    for (task, kind, folder), v in done:
        if kind == "reference":
            assert v.grade.outcome == "pass", (task.id, v.grade.detail, v.cases)
        else:  # wrong, by the budget case alone: not a timeout, and every other case passes
            assert v.grade.outcome == "wrong", (task.id, folder.name, v.grade.outcome, v.cases)
            assert len(v.failed_cases) == 1 and v.cases[next(iter(v.failed_cases))] == "fail", (task.id, v.cases)


COST_TOML = SQUARE_TOML.replace('file = "sq.py"', 'file = "sq.py"\ntest_timeout = 60')


def cost_task(tmp_path, body: str, solution: str):
    suite = Path(tempfile.mkdtemp(dir=tmp_path)) / "suite"
    test = ("import kbtest as kb\n\nOWN = 'def square(x):\\n    return x * x\\n'\n\n@kb.case\ndef budget():\n"
            + body + "\n\nkb.main()\n")
    write_task(suite, "square", COST_TOML.format(id="square"), {"tests/test_task.py": test, "solution/sq.py": solution})
    return load_suite(suite).get("square")


def graded(tmp_path, work, body, agent_code):
    task = cost_task(tmp_path, body, "def square(x):\n    return x * x\n")
    wd = prepare_workdir(task, Path(tempfile.mkdtemp(dir=work)) / "wd")
    (wd / "sq.py").write_text(agent_code)
    out = wd.parent / "out.txt"
    return grade(task, wd, output_path=out), out.read_text()


WITHIN = ('    c = kb.within_cost("squaring", '
          'kb.agent_code("sq.py", "answer([mod.square(i) for i in range(200000)])"),\n'
          '                      kb.reference_code(OWN, "answer([square(i) for i in range(200000)])"), factor=5)\n'
          '    kb.eq(c.value("squares")[-1], 199999 ** 2, "the last square")\n')


def test_work_past_the_budget_is_wrong_and_a_sound_solution_passes(tmp_path, work):
    g, out = graded(tmp_path, work, WITHIN, "def square(x):\n    return x ** 2\n")
    assert g.outcome == "pass", out
    assert "COST squaring" in out
    slow = "def square(x):\n    total = 0\n    for _ in range(abs(x) % 2000):\n        total += x\n    return x * x\n"
    g, out = graded(tmp_path, work, WITHIN, slow)
    assert g.outcome == "wrong", out
    assert "stopped at its budget" in out


def test_a_measured_run_that_never_finishes_is_a_timeout_not_wrong(tmp_path, work):
    body = ('    c = kb.measure(kb.agent_code("sq.py", "answer(mod.square(3))"), timeout=2)\n'
            '    kb.eq(c.value("square"), 9, "square(3)")\n')
    g, out = graded(tmp_path, work, body, "import time\n\ndef square(x):\n    time.sleep(3600)\n")
    assert g.outcome == "timeout", out
    assert "TIMEOUT budget" in out and "safety stop" in out


def test_a_command_past_its_limit_is_a_timeout_not_wrong(tmp_path, work):
    body = '    rc, out, err = kb.run(["sleep", "30"], timeout=1)\n    kb.eq(rc, 0, "exit code")\n'
    g, out = graded(tmp_path, work, body, "def square(x):\n    return x * x\n")
    assert g.outcome == "timeout", out


def test_a_wrong_answer_elsewhere_outweighs_a_safety_stop(tmp_path, work):
    body = ('    kb.eq(1, 2, "a plain wrong answer")\n\n@kb.case\ndef slow():\n'
            '    kb.run(["sleep", "30"], timeout=1)\n')
    g, out = graded(tmp_path, work, body, "def square(x):\n    return x * x\n")
    assert g.outcome == "wrong", out
