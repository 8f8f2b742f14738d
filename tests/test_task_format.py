"""Broken task files give clear errors naming the file and the field; the suite has a fingerprint."""

import os

import pytest
from conftest import SQUARE_TEST, SQUARE_TOML, write_task

from task_defs import TaskFileError, load_suite
from task_defs.canary import CANARY
from task_defs.loader import select

GOOD_FILES = {"tests/test_task.py": SQUARE_TEST, "solution/sq.py": "def square(x):\n    return x * x\n"}


def suite_with(tmp_path, toml, files=GOOD_FILES, task_id="square"):
    suite = tmp_path / "suite"
    write_task(suite, task_id, toml, files)
    return suite


def error_of(suite):
    with pytest.raises(TaskFileError) as info:
        load_suite(suite)
    return info.value


def test_good_task_loads(tmp_path):
    suite = load_suite(suite_with(tmp_path, SQUARE_TOML.format(id="square")))
    task = suite.get("square")
    assert (task.category, task.tier, task.file, task.graded_file) == ("programming", "easy", "sq.py", "sq.py")
    assert task.all_prompts == ["Write sq.py with square(x) returning x*x."]
    assert len(suite.fingerprint) == 64


@pytest.mark.parametrize(
    "change, field",
    [
        (("tier = \"easy\"", "tier = \"hrad\""), "tier"),
        (("category = \"programming\"", "category = \"coding\""), "category"),
        (("file = \"sq.py\"", "file = \"/etc/passwd\""), "file"),
        (("file = \"sq.py\"", "file = \"../outside.py\""), "file"),
        (("prompt = ", "promt = "), "promt"),
        (("title = \"square a number\"\n", ""), "title"),
    ],
)
def test_bad_field_names_file_and_field(tmp_path, change, field):
    toml = SQUARE_TOML.format(id="square").replace(*change)
    err = error_of(suite_with(tmp_path, toml))
    assert err.path.endswith("square/task.toml")
    assert err.field == field
    assert "task.toml" in str(err) and field in str(err)


def test_missing_prompt_and_both_prompt_forms(tmp_path):
    toml = SQUARE_TOML.format(id="square").replace('prompt = "Write sq.py with square(x) returning x*x."', "")
    assert "exactly one of 'prompt' or 'prompts'" in str(error_of(suite_with(tmp_path, toml)))


def test_invalid_toml_names_the_file(tmp_path):
    err = error_of(suite_with(tmp_path, SQUARE_TOML.format(id="square") + "\nbroken = [\n"))
    assert "task.toml" in err.path and "not valid TOML" in str(err)


def test_missing_hidden_test_names_field_test(tmp_path):
    err = error_of(suite_with(tmp_path, SQUARE_TOML.format(id="square"), {"solution/sq.py": "x = 1\n"}))
    assert err.field == "test"


def test_file_without_canary_is_refused(tmp_path):
    suite = suite_with(tmp_path, SQUARE_TOML.format(id="square"))
    (suite / "square" / "setup").mkdir()
    (suite / "square" / "setup" / "data.csv").write_text("a,b\n1,2\n")
    err = error_of(suite)
    assert err.path.endswith("setup/data.csv") and err.field == "canary"
    toml = suite / "square" / "task.toml"
    toml.write_text(toml.read_text() + 'no_canary = ["setup/data.csv"]\n')
    assert load_suite(suite).get("square").no_canary == ["setup/data.csv"]


def test_symlink_escaping_the_task_is_refused(tmp_path):
    suite = suite_with(tmp_path, SQUARE_TOML.format(id="square"))
    os.symlink("/etc/passwd", suite / "square" / "solution" / "leak.txt")
    err = error_of(suite)
    assert "symlink escapes" in str(err) and err.path.endswith("leak.txt")


def test_two_tasks_with_one_id_are_refused(tmp_path):
    suite = tmp_path / "suite"
    write_task(suite, "square", SQUARE_TOML.format(id="square"), GOOD_FILES)
    write_task(suite, "square2", SQUARE_TOML.format(id="square"), GOOD_FILES)
    err = error_of(suite)
    assert err.field == "id" and "duplicate id 'square'" in str(err)


def test_fingerprint_moves_when_any_file_changes(tmp_path):
    suite_dir = suite_with(tmp_path, SQUARE_TOML.format(id="square"))
    before = load_suite(suite_dir).fingerprint
    assert load_suite(suite_dir).fingerprint == before
    test = suite_dir / "square" / "tests" / "test_task.py"
    test.write_text(test.read_text() + "# a stricter test\n")
    assert load_suite(suite_dir).fingerprint != before


def test_real_suite_has_the_seed_table():
    suite = load_suite("kbench")
    cats = {}
    for t in suite.tasks:
        cats.setdefault(t.category, []).append(t)
    assert len(suite.tasks) == 65
    assert {c: len(v) for c, v in cats.items()} == {"programming": 29, "repair": 3, "terminal": 24, "chain": 9}
    prog_tiers = sorted(t.tier for t in cats["programming"])
    assert (prog_tiers.count("easy"), prog_tiers.count("medium"), prog_tiers.count("hard")) == (8, 11, 10)
    assert {t.language for t in cats["programming"]} == {"python", "shell", "javascript"}
    assert any(len(t.all_prompts) > 1 for t in cats["chain"])
    for t in suite.tasks:
        for prompt in t.all_prompts:
            assert CANARY not in prompt, f"{t.id}: the canary leaked into the prompt"


def test_select_by_id_category_and_tier():
    suite = load_suite("kbench")
    assert [t.id for t in select(suite, "fizz")] == ["fizz"]
    assert all(t.category == "repair" for t in select(suite, "repair"))
    assert len(select(suite, "easy,fizz")) == 8
    with pytest.raises(ValueError, match="not a task id, category or tier"):
        select(suite, "nosuchtask")
