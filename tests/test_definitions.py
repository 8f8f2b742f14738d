"""The suite asset records its fingerprint, and its blocking check stops a broken suite."""

import dagster as dg
from conftest import SQUARE_TOML, write_task

from assets.suites import hidden_tests_are_proven, task_suites
from kbench_dagster.resources import SandboxSettings, SuiteSource
from task_defs.canary import CANARY


def _materialize(suite_dir, work):
    return dg.materialize(
        [task_suites, hidden_tests_are_proven],
        resources={"suite_source": SuiteSource(suites=[str(suite_dir)]),
                   "sandbox": SandboxSettings(work_root=str(work), validate_workers=1)},
        raise_on_error=False,
    )


def test_suite_asset_records_fingerprint_and_passes_its_check(square_suite, work):
    res = _materialize(square_suite, work)
    assert res.success
    mat = res.asset_materializations_for_node("task_suites")[0]
    assert mat.metadata["tasks"].value == 1
    checks = res.get_asset_check_evaluations()
    assert [c.passed for c in checks] == [True]


def test_a_suite_whose_reference_fails_is_blocked(tmp_path, work):
    suite = tmp_path / "broken"
    test = "import kbtest as kb\nm = kb.load('sq.py')\n\n@kb.case\ndef c():\n    kb.eq(m.square(2), 4)\n\nkb.main()\n"
    write_task(suite, "square", SQUARE_TOML.format(id="square"),
               {"tests/test_task.py": test, "solution/sq.py": "def square(x):\n    return 5\n"})
    res = _materialize(suite, work)
    checks = res.get_asset_check_evaluations()
    assert [c.passed for c in checks] == [False]
    assert checks[0].metadata["failed"].value == 1


def test_a_mutant_the_hidden_test_misses_blocks_the_suite(square_suite, work):
    """The check counts shipped mutants; one that passes is a hole in the hidden test and fails the check."""
    missed = square_suite / "square" / "mutants" / "renamed_argument"
    missed.mkdir(parents=True)
    (missed / "sq.py").write_text(f"# {CANARY}\ndef square(y):\n    return y * y\n")
    (missed / "note.txt").write_text(f"# {CANARY}\nthe argument has another name (still right: a bad mutant)\n")
    res = _materialize(square_suite, work)
    check = res.get_asset_check_evaluations()[0]
    assert not check.passed
    assert (check.metadata["mutants"].value, check.metadata["mutants_killed"].value) == (1, 0)
    assert "renamed_argument" in check.metadata["failures"].value
