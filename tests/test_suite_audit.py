"""`kbench audit`: a small suite that breaks each rule of the contract once; each violation is named with its file."""

from pathlib import Path

import pytest
from conftest import SQUARE_TEST, SQUARE_TOML, write_task

from kbench_dagster.cli import main
from kbench_dagster.reporting.difficulty import by_task, report_lines, shares
from sandbox.tasks.suite_audit import audit_suite, normalise_prompt

RIGHT = "def square(x):\n    return x * x\n"
# each of these fails exactly one of the three cases of SQUARE_TEST (small, negative, zero)
ONE_CASE_MUTANTS = {
    "sign_lost": "def square(x):\n    return x * abs(x) if x < 0 else x * x\n",
    "zero_is_one": "def square(x):\n    return x * x if x else 1\n",
    "three_wrong": "def square(x):\n    return 10 if x == 3 else x * x\n",
}


def variants(kind: str, found: dict[str, str]) -> dict[str, str]:
    files = {}
    for name, code in found.items():
        files[f"{kind}/{name}/sq.py"] = code
        files[f"{kind}/{name}/note.txt"] = f"the {name} variant\n"
    return files


def square_task(suite: Path, task_id: str, *, mutants=ONE_CASE_MUTANTS, alternatives=None, solution=RIGHT,
                extra=None, prompt=None, canary=True) -> Path:
    toml = SQUARE_TOML.format(id=task_id).replace(  # prompts differ, but for the one that copies another on purpose
        'prompt = "Write sq.py with square(x) returning x*x."',
        f"prompt = {prompt or f'Write sq.py with square(x) returning x*x (task {task_id}).'!r}")
    files = {"tests/test_task.py": SQUARE_TEST, "solution/sq.py": solution, **variants("mutants", mutants),
             **variants("alternatives", {"power": "def square(x):\n    return x ** 2\n"} if alternatives is None
                        else alternatives), **(extra or {})}
    folder = write_task(suite, task_id, toml, files)
    if not canary:  # one file loses its canary line
        target = folder / "mutants" / "sign_lost" / "sq.py"
        target.write_text(target.read_text().split("\n", 1)[1])
    return folder


ANSWER_TOML = """
id = "{id}"
title = "count the lines of a file"
category = "terminal"
tier = "terminal"
answer = "answer.txt"
prompt = "{prompt}"
no_canary = ["solution/answer.txt", "mutants/off_by_one/answer.txt"]
"""
ANSWER_TEST = """
import kbtest as kb

@kb.case
def right_count():
    kb.eq(kb.read("answer.txt").strip(), "4217", "answer.txt")

@kb.case
def one_line():
    kb.ok(kb.read("answer.txt").count("\\n") <= 1, "one line")

@kb.case
def no_leading_space():
    kb.ok(not kb.read("answer.txt").startswith((" ", "\\t")), "no space before the number")

kb.main()
"""
ANSWER_MUTANTS = {"mutants/off_by_one/note.txt": "one short\n", "mutants/blank_line/note.txt": "a blank line after\n",
                  "mutants/blank_line/solve.sh": "printf '4217\\n\\n' > answer.txt\n",
                  "mutants/indented/solve.sh": "printf ' 4217\\n' > answer.txt\n",
                  "mutants/indented/note.txt": "a space\n"}


def answer_task(suite: Path, task_id: str, prompt: str, setup_text: str) -> Path:
    folder = write_task(suite, task_id, ANSWER_TOML.format(id=task_id, prompt=prompt),
                        {"tests/test_task.py": ANSWER_TEST, "setup/data.txt": setup_text, **ANSWER_MUTANTS})
    for rel, text in {"solution/answer.txt": "4217\n", "mutants/off_by_one/answer.txt": "4216\n"}.items():
        # an answer file holds no comment line
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


@pytest.fixture(scope="module")
def bad_suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("audit")
    suite = root / "suite"
    square_task(suite, "good")
    square_task(suite, "nocanary", canary=False)
    square_task(suite, "fewmutants", mutants={"sign_lost": ONE_CASE_MUTANTS["sign_lost"]})
    square_task(suite, "noalt", alternatives={})
    square_task(suite, "livemutant", mutants={**ONE_CASE_MUTANTS, "renamed": "def square(y):\n    return y * y\n"})
    square_task(suite, "badalt", alternatives={"cube": "def square(x):\n    return x * x * x\n"})
    square_task(suite, "untouchedpass", extra={"setup/sq.py": RIGHT})
    square_task(suite, "badref", solution="def square(x):\n    return x + x\n")
    square_task(suite, "dependent", mutants={f"zero_{i}": "def square(x):\n    return 0\n" for i in range(3)})
    square_task(suite, "dupprompt", prompt="write SQ.PY with   square(x), returning x*x: (task BADREF)!")
    answer_task(suite, "answergood", "Count the lines of data.txt; write the count to answer.txt.", "a\nb\n")
    answer_task(suite, "inprompt", "There are 4217 lines in data.txt; write the count to answer.txt.", "a\nb\n")
    answer_task(suite, "insetup", "How many lines does data.txt hold? Put the number in answer.txt.", "x\n4217\ny\n")
    work = root / "work"
    work.mkdir()
    work.chmod(0o755)
    return suite, work, audit_suite(suite, work, workers=2)


EXPECTED = {  # task -> (rule, the path the violation must name, relative to the task folder)
    "nocanary": ("canary", "mutants/sign_lost/sq.py"),
    "fewmutants": ("mutants", "mutants"),
    "noalt": ("alternatives", "alternatives"),
    "livemutant": ("mutant", "mutants/renamed"),
    "badalt": ("alternative", "alternatives/cube"),
    "untouchedpass": ("untouched", "tests/test_task.py"),
    "badref": ("reference", "solution"),
    "dependent": ("independent cases", "tests/test_task.py"),
    "dupprompt": ("duplicate prompt", "task.toml"),
    "inprompt": ("answer in prompt", "task.toml"),
    "insetup": ("answer in setup", "setup/data.txt"),
}


@pytest.mark.parametrize("task", sorted(EXPECTED))
def test_each_broken_rule_is_named_with_its_file(bad_suite, task):
    suite, _, report = bad_suite
    rule, rel = EXPECTED[task]
    named = [(v.rule, v.path) for v in report.violations]
    assert (rule, str(suite / task / rel)) in named, named


def test_a_sound_task_has_no_violation(bad_suite):
    suite, _, report = bad_suite
    for task in ("good", "answergood"):
        assert not [v for v in report.violations if v.path.startswith(str(suite / task))], report.violations
    assert not report.ok


def test_audit_command_exits_nonzero_and_prints_each_violation(bad_suite, capsys):
    suite, work, _ = bad_suite
    assert main(["--suite", str(suite), "audit", "--work", str(work), "--tasks", "good,badref", "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert f"VIOLATION {suite / 'badref' / 'solution'}: reference: the reference gets wrong" in out
    assert "programming  easy" in out and "1 violations" in out
    assert main(["--suite", str(suite), "audit", "--work", str(work), "--tasks", "good", "--workers", "1"]) == 0


def test_prompt_normalising():
    assert normalise_prompt("Write  sq.py, with square(x)!") == normalise_prompt("write sq py with SQUARE x")
    assert normalise_prompt("square x") != normalise_prompt("cube x")


def test_difficulty_needs_two_contestants_then_flags_tasks():
    one = by_task([("fizz", "m1 · pi · base", 2, 1.0)])
    assert "at least 2 contestants" in report_lines(one)[0]
    rows = [("fizz", "a", 2, 1.0), ("fizz", "b", 2, 1.0), ("lru", "a", 2, 0.0), ("lru", "b", 2, 0.0),
            ("topo", "a", 2, 0.5), ("topo", "b", 2, 0.0), ("rle", "a", 2, 0.5), ("rle", "b", 2, 0.5)]
    tasks = {t.task: t for t in by_task(rows)}
    assert tasks["fizz"].saturated and tasks["lru"].dead and not tasks["topo"].flag
    assert [t.task for t in tasks.values() if t.discriminating] == ["topo"]
    assert shares(list(tasks.values())) == (0.25, 0.25)  # rle's mean 0.5 is in the band, topo's 0.25 is not
    text = "\n".join(report_lines(list(tasks.values())))
    assert "1 saturated" in text and "1 dead" in text and "discriminating 25%" in text
