"""The kbench CLI as a user runs it."""

import shutil
import subprocess
import sys

import pytest
from conftest import REPO, SQUARE_TOML, write_task

from kbench_dagster.cli import main

KBENCH = [sys.executable, "-m", "kbench_dagster.cli"]


def test_list_markdown(capsys):
    assert main(["list", "--markdown", "--tasks", "repair"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| id | category | tier |")
    assert len(out) == 2 + 3 and all("| repair |" in row for row in out[2:])


def test_show_hides_the_test_unless_all(capsys):
    assert main(["show", "fizz"]) == 0
    plain = capsys.readouterr().out
    assert "fizzbuzz(n)" in plain and "hidden test" not in plain
    assert main(["show", "fizz", "--all"]) == 0
    full = capsys.readouterr().out
    assert "--- hidden test: test_task.py" in full and "--- reference: fizz.py" in full


def test_unknown_task_and_selection_give_clear_errors(capsys):
    assert main(["show", "nosuch"]) == 2
    assert "no task 'nosuch'" in capsys.readouterr().err
    assert main(["list", "--tasks", "fizz,bogus"]) == 2
    assert "'bogus' is not a task id, category or tier" in capsys.readouterr().err


def test_broken_task_file_names_file_and_field(tmp_path, capsys):
    suite = tmp_path / "suite"
    write_task(suite, "square", SQUARE_TOML.format(id="square").replace('tier = "easy"', 'tier = 3'),
               {"tests/test_task.py": "x = 1\n", "solution/sq.py": "x = 1\n"})
    assert main(["--suite", str(suite), "list"]) == 2
    err = capsys.readouterr().err
    assert "square/task.toml: field 'tier'" in err


def test_validate_reports_failures_and_exits_nonzero(tmp_path, work, capsys):
    suite = tmp_path / "suite"
    good_test = ("import kbtest as kb\nm = kb.load('sq.py')\n\n"
                 "@kb.case\ndef c():\n    kb.eq(m.square(3), 9)\n\nkb.main()\n")
    write_task(suite, "square", SQUARE_TOML.format(id="square"),
               {"tests/test_task.py": good_test, "solution/sq.py": "def square(x):\n    return x * x\n"})
    write_task(suite, "badref", SQUARE_TOML.format(id="badref"),
               {"tests/test_task.py": good_test, "solution/sq.py": "def square(x):\n    return 0\n"})
    rc = main(["--suite", str(suite), "validate", "--work", str(work), "--workers", "2"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "OK      square" in out and "FAIL    badref" in out and "reference solution gets 'wrong'" in out
    assert "1 ok, 1 failed, 0 skipped of 2 tasks" in out


def test_whole_suite_keeps_its_contract(work):
    """The main job: `kbench audit` over the 65 tasks. Every hidden test fails untouched and on every shipped
    mutant, passes the reference and every correct alternative, has three independent cases; no violation."""
    cp = subprocess.run(KBENCH + ["audit", "--work", str(work)], capture_output=True, text=True, cwd=REPO)
    assert cp.returncode == 0, cp.stdout[-4000:] + cp.stderr[-2000:]
    summary = cp.stdout.strip().splitlines()[-1]
    assert summary.startswith("65 tasks audited") and " 0 violations" in summary, summary
    killed, shipped = summary.split("mutants killed ")[1].split(";")[0].split("/")
    assert killed == shipped and int(shipped) >= 3 * 32 + 2 * 33 - 2, summary  # gpuname's skip without a GPU
    if shutil.which("nvidia-smi") is None:
        assert "skipped here (requirements missing): gpuname" in summary


def test_each_command_loads_only_its_own_module_and_the_table_names_every_command():
    """`kbench trials ...` imports the trials' modules, not the capability suite's or the breakdown's; the table
    that says which module adds which command is checked against what each module adds."""
    import argparse
    import importlib

    from kbench_dagster.cli import COMMANDS, build_parser

    for module, function in set(COMMANDS.values()):
        sub = argparse.ArgumentParser().add_subparsers()
        getattr(importlib.import_module(module), function)(sub)
        assert sorted(sub.choices) == sorted(c for c, m in COMMANDS.items() if m == (module, function)), module
    everything = build_parser()._subparsers._group_actions[0].choices
    assert sorted(everything) == sorted(COMMANDS)
    code = ("import sys; from kbench_dagster.cli import build_parser; "
            "build_parser('trials').parse_args(['--suite', 'x', 'trials', 'hash']); "
            "print(sorted(m for m in ('sandbox.chatwork.capability', 'sandbox.chatwork.breakdown', "
            "'kbench_dagster.selftest', 'kbench_dagster.commands.core') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_help_lists_every_command_once_in_its_group_and_version_says_the_release(capsys):
    from kbench_dagster.cli import COMMANDS, GROUPS

    grouped = [c for names in GROUPS.values() for c in names]
    assert sorted(grouped) == sorted(COMMANDS)  # each command in exactly one group
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "COMMAND ..." in out.splitlines()[0]
    for title, names in GROUPS.items():
        block = out.split(f"\n{title}:\n")[1].split("\n\n")[0]
        assert [line.split()[0] for line in block.splitlines()] == list(names), title
    with pytest.raises(SystemExit):
        main(["--version"])
    import tomllib

    release = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert capsys.readouterr().out.strip() == f"kbench {release}"


def test_a_mistyped_command_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["trails", "run"])
    err = capsys.readouterr().err
    assert "invalid choice: 'trails'" in err and "'trials'" in err and "'capability'" in err
