"""The judge's commands import and run nothing the agent wrote (sandbox/judge/commands.py), graded by the real path
(sandbox.tasks.grading.grade on materialized tasks): a json.py beside Harbor's reward reader, a pytest.py, a
unittest/ package or a tests/__init__.py beside a check, a reward.txt that something test.sh ran made read-only or a
folder; and a Harbor task whose test.sh calls pytest is runnable, with the judge's own pytest, not the agent's."""

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from sandbox.judge import commands
from sandbox.tasks.grading import grade
from sandbox.tasks.validation import prepare_workdir
from task_defs import load_suite
from task_defs.importers.harbor import load_harbor

OURS = Path(__file__).parent / "data" / "harbor_tasks"
FORGE = "import os\nos._exit(0)\n"  # a module that, imported, ends its process with success


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))


def plant(work: Path, marker: str = "forged") -> None:
    """What an agent leaves to stand in for the judge's modules: each ends the process that imports it with 0."""
    for name in ("json.py", "pytest.py", "os.py", "stat.py"):
        (work / name).write_text(f"# {marker}\n{FORGE}")
    for package in ("unittest", "tests", "_pytest"):
        (work / package).mkdir(exist_ok=True)
        (work / package / "__init__.py").write_text(f"# {marker}\n{FORGE}")


def harbor_task(tmp_path: Path, name: str, test_sh: str, files: dict[str, str] | None = None):
    folder = tmp_path / "src" / name
    (folder / "environment").mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (folder / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60.0\n')
    (folder / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    (folder / "tests" / "test.sh").write_text("#!/bin/bash\n" + textwrap.dedent(test_sh))
    for rel, text in (files or {}).items():
        (folder / "tests" / rel).write_text(textwrap.dedent(text))
    return load_suite(folder.parent).get(name.replace("-", "_"))


CHECK_ANSWER = """\
    import sys
    sys.exit(0 if open("/app/answer.txt").read().strip() == "42" else "not 42")
"""


def test_a_json_py_beside_the_reward_reader_is_never_imported(tmp_path):
    task = load_suite(OURS).get("tally_log_levels")
    work = prepare_workdir(task, tmp_path / "w")
    plant(work)
    g = grade(task, work, output_path=tmp_path / "out.txt")
    assert g.outcome == "wrong" and "reward 0" in (tmp_path / "out.txt").read_text(), g


@pytest.mark.parametrize("prog, said", [
    # the agent's program pre-writes the reward and makes it read-only: the test's `echo 0 >` fails
    ("open('/logs/verifier/reward.txt', 'w').write('1')\nimport os\nos.chmod('/logs/verifier/reward.txt', 0o444)",
     "read-only"),
    # reward.txt a folder, so `echo 0 >` fails, and a reward.json of 1 beside it
    ("import os\nos.mkdir('/logs/verifier/reward.txt')\nopen('/logs/verifier/reward.json', 'w').write('{\"r\": 1}')",
     "not a regular file"),
    # a link in the reward's place
    ("import os\nopen('/app/one', 'w').write('1')\nos.symlink('/app/one', '/logs/verifier/reward.txt')",
     "following a link"),
])
def test_a_reward_the_agents_program_made_unwritable_is_wrong(tmp_path, prog, said):
    task = harbor_task(tmp_path, "prewrite", """\
        python3 /app/prog.py
        if python3 /tests/check.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
        """, {"check.py": CHECK_ANSWER})
    work = prepare_workdir(task, tmp_path / "w")
    (work / "prog.py").write_text(prog + "\n")
    g = grade(task, work, output_path=tmp_path / "out.txt")
    assert g.outcome == "wrong" and said in (tmp_path / "out.txt").read_text(), g


# The agent's program leaves a process behind (its own session, twice forked) that waits for the reward reader to
# start, stops it, puts a reward of 1 in place of test.sh's 0 and lets it go on: only a process that outlives test.sh
# can do that, so with every one of them gone before the reader starts, test.sh's own 0 is what is read.
LINGER = """\
import os, signal, time
ready, told = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        seen = set(os.listdir("/proc"))
        os.write(told, b"!")  # test.sh goes on only now: the reader is not yet among the processes seen
        for _ in range(200000):
            for pid in set(os.listdir("/proc")) - seen:
                try:
                    cmd = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\\0")
                except OSError:
                    continue
                if cmd[0].endswith(b"python3") and b"-I" in cmd:
                    os.kill(int(pid), signal.SIGSTOP)
                    open("/logs/verifier/forged", "w").write("1")
                    os.rename("/logs/verifier/forged", "/logs/verifier/reward.txt")
                    os.kill(int(pid), signal.SIGCONT)
                    os._exit(0)
            time.sleep(0.0001)
    os._exit(0)
os.read(ready, 1)
"""


def test_a_process_the_agents_program_left_behind_cannot_rewrite_the_reward(tmp_path):
    task = harbor_task(tmp_path, "linger", """\
        python3 /app/prog.py
        echo 0 > /logs/verifier/reward.txt
        """)
    work = prepare_workdir(task, tmp_path / "w")
    (work / "prog.py").write_text(LINGER)
    g = grade(task, work, output_path=tmp_path / "out.txt")
    assert g.outcome == "wrong" and "reward 0" in (tmp_path / "out.txt").read_text(), g


@pytest.mark.parametrize("reward, outcome", [
    ('{"correctness": 1, "performance": 1}', "pass"), ('{"correctness": 1, "performance": 0.5}', "wrong"),
    ("{}", "wrong"), ('{"correctness": true}', "wrong"), ("1", "pass"), ('"1"', "wrong"),
])
def test_a_multi_key_reward_passes_only_when_every_value_is_met(tmp_path, reward, outcome):
    task = harbor_task(tmp_path, "multi", f"echo '{reward}' > /logs/verifier/reward.json\n")
    work = prepare_workdir(task, tmp_path / "w")
    assert grade(task, work).outcome == outcome


PYTEST_TEST = """\
    def test_answer():
        assert open("/app/answer.txt").read().strip() == "42"
"""


@pytest.mark.parametrize("run", ["python3 -m pytest -q /tests/test_outputs.py", "pytest -q /tests/test_outputs.py"])
def test_a_pytest_check_gets_the_judges_pytest_and_never_the_agents(tmp_path, run):
    task = harbor_task(tmp_path, "needs-pytest", f"""\
        cd /app
        {run} && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
        """, {"test_outputs.py": PYTEST_TEST})
    assert task.unavailable is None  # runnable here: the judge lends its pytest
    work = prepare_workdir(task, tmp_path / "honest")
    (work / "answer.txt").write_text("42\n")
    assert grade(task, work).outcome == "pass"
    work = prepare_workdir(task, tmp_path / "hostile")
    plant(work)
    (work / "conftest.py").write_text(FORGE)  # beside the work folder, not the tests: pytest never loads it
    (work / "pytest").write_text("#!/bin/sh\nexit 0\n")
    (work / "pytest").chmod(0o755)
    g = grade(task, work, output_path=tmp_path / "out.txt")
    assert g.outcome == "wrong" and "reward 0" in (tmp_path / "out.txt").read_text(), g


def test_without_the_judges_pytest_a_pytest_task_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(commands, "pytest_version", lambda: None)
    folder = tmp_path / "t"
    shutil.copytree(OURS / "tally-log-levels", folder)
    (folder / "tests" / "test.sh").write_text("pytest /tests/test_outputs.py; echo $? > /logs/verifier/reward.txt\n")
    [(fx, _)] = load_harbor(folder)[1]
    assert "runs pytest" in fx.unavailable and "judge" in fx.unavailable
    (folder / "tests" / "test.sh").write_text("pip install -r /tests/requirements.txt\n")
    [(fx, _)] = load_harbor(folder)[1]
    assert "fetches from the network" in fx.unavailable


def command_suite(tmp_path: Path):
    """A JSON fixture whose checks only read a file: README.md must say 'done'."""
    check = "import json, sys\nsys.exit(0 if 'done' in open('README.md').read() else 'README.md is not done')\n"
    test = "import unittest\n\nclass T(unittest.TestCase):\n    def test_done(self):\n" \
           "        self.assertIn('done', open('README.md').read())\n"
    doc = {"suite": "cmds", "tasks": [{
        "id": "readme-done", "title": "mark the readme done", "prompt": "Write done into README.md.",
        "workspace": {"files": {"README.md": "todo\n"}},
        "verification": {"type": "command", "command": "python3 check.py",
                         "files": {"check.py": check, "tests/test_readme.py": test},
                         "pass_to_pass": ["python3 -m pytest -q tests/test_readme.py",
                                          "python3 -m unittest discover -s tests"]},
        "reference": {"files": {"README.md": "done\n"}}}]}
    path = tmp_path / "cmds.json"
    path.write_text(json.dumps(doc))
    return load_suite(path).get("readme_done")


def test_shadows_beside_a_command_check_never_turn_a_fail_into_a_pass(tmp_path):
    task = command_suite(tmp_path)
    work = prepare_workdir(task, tmp_path / "hostile")
    plant(work)
    g = grade(task, work, output_path=tmp_path / "out.txt")
    said = (tmp_path / "out.txt").read_text()
    assert g.outcome == "wrong" and "FAIL the_verification_command_passes" in said, said
    work = prepare_workdir(task, tmp_path / "honest")
    (work / "README.md").write_text("done\n")
    plant(work)  # shadows beside a right answer change nothing either
    assert grade(task, work).outcome == "pass"
