"""A systematic shadow sweep of every kind that grades by running something in a work folder: a null attempt's work
folder filled with a module named after EVERY standard-library module, a unittest/ and a tests/ package, and an
executable named after every command a verifier calls, each of which forges a pass (prints PASS and a reward of 1,
writes reward.txt, exits 0), is graded exactly as the empty null attempt: never a pass.

The kinds: kbtest hidden tests (a repair task loading the agent's module, one running its script), a Harbor task
(test.sh and the reward reader), a SWE-style record (FAIL_TO_PASS commands in a git repository) and a JSON fixture's
command check. One grading per task and attempt, not one per module."""

import os
import sys
from pathlib import Path

import pytest

from sandbox.tasks.grading import grade
from sandbox.tasks.validation import prepare_workdir
from task_defs import load_suite
from task_defs.importers.materialize import materialize
from task_defs.importers.swe import load_swe

DATA = Path(__file__).parent / "data"
FORGED_MODULE = """# shadow-sweep
print("PASS")
print("reward 1 (test.sh exited 0)")
try:
    open("/logs/verifier/reward.txt", "w").write("1")
except Exception:
    pass
raise SystemExit(0)
"""
FORGED_COMMAND = "#!/bin/sh\n# shadow-sweep\necho PASS\necho 1 > /logs/verifier/reward.txt 2>/dev/null\nexit 0\n"
# what the verifiers of these kinds call, and what a check commonly does
COMMANDS = ("python3", "python", "python3.11", "pytest", "py.test", "sh", "bash", "test", "[", "echo", "cat", "grep",
            "sed", "tr", "diff", "awk", "cut", "sort", "head", "tail", "wc", "env", "true", "false", "git", "node",
            "ls", "find", "xargs", "mkdir", "rm", "cp", "mv", "chmod", "uv", "uvx", "pip", "jq", "tar", "gzip")


def fill(work: Path) -> int:
    """Every shadow beside what the attempt already holds; how many files were laid."""
    laid = 0
    for name in sorted(sys.stdlib_module_names):
        path = work / f"{name}.py"
        if not os.path.lexists(path):
            path.write_text(FORGED_MODULE)
            laid += 1
    for package in ("unittest", "tests", "json", "pytest", "_pytest"):
        (work / package).mkdir(exist_ok=True)
        (work / package / "__init__.py").write_text(FORGED_MODULE)
        laid += 1
    for name in COMMANDS:
        path = work / name
        if not os.path.lexists(path):
            path.write_text(FORGED_COMMAND)
            path.chmod(0o755)
            laid += 1
    return laid


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))


def swe_suite():
    return load_suite(materialize(*load_swe(DATA / "swe_cases.jsonl", trusted=True)))


KINDS = {
    "kbtest-load": (lambda: load_suite("kbench"), "fixavg"),
    "kbtest-run": (lambda: load_suite("kbench"), "fixcsvsum"),
    "harbor": (lambda: load_suite(DATA / "harbor_tasks"), "tally_log_levels"),
    "swe": (swe_suite, "inventory__inventory_9"),
    "command-fixture": (lambda: load_suite("smoke"), "smoke_edit_readme"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_folder_of_shadows_grades_as_the_empty_null_attempt(tmp_path, kind):
    suite_of, task_id = KINDS[kind]
    task = suite_of().get(task_id)
    empty = grade(task, prepare_workdir(task, tmp_path / "empty"))
    assert empty.outcome in ("wrong", "nofile"), (kind, empty)
    work = prepare_workdir(task, tmp_path / "shadows")
    assert fill(work) > len(sys.stdlib_module_names) // 2
    swept = grade(task, work, output_path=tmp_path / "out.txt")
    assert swept.outcome == empty.outcome, (kind, swept, (tmp_path / "out.txt").read_text()[-1500:])
