"""JSON task fixtures as suites: every bad path refused with the file, the task and the path named and nothing
written; a broken file names the field; fixtures validate (untouched fails, the reference passes, mutants fail)
and run through the one loop (the scripted oracle passes them, null none); a command verification's files stay
hidden from the agent until the verification runs."""

import json

import pytest

from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from sandbox.tasks.validation import validate_tasks
from task_defs import load_suite
from task_defs.canary import CANARY
from task_defs.errors import TaskFileError

ADD = {
    "id": "mini-add", "title": "Add two numbers", "tags": ["repair", "easy"],
    "prompt": "Fix add() in calc.py so that it returns the sum of its two arguments.",
    "workspace": {"files": {"calc.py": "def add(a, b):\n    return a - b\n"}},
    "verification": {"type": "kbtest", "test": (
        "import kbtest as kb\n\nm = kb.load('calc.py')\nadd = kb.func(m, 'add')\n\n\n@kb.case\ndef sums():\n"
        "    kb.eq(add(2, 3), 5, 'add(2, 3)')\n    kb.eq(add(-1, 1), 0, 'add(-1, 1)')\n")},
    "reference": {"files": {"calc.py": "def add(a, b):\n    return a + b\n"}},
    "mutants": [{"note": "multiplies instead", "files": {"calc.py": "def add(a, b):\n    return a * b\n"}}]}
README = {
    "id": "mini-readme", "title": "Greet in the README", "tags": ["programming", "easy"],
    "prompt": "Change the first line of README.md to exactly: Hello, world",
    "workspace": {"files": {"README.md": "Goodbye\nmore text\n"}},
    "verification": {"type": "command", "command": "bash check.sh",
                     "files": {"check.sh": "head -n 1 README.md | grep -qx 'Hello, world'\n"}},
    "limits": {"timeout_seconds": 60, "max_steps": 12},
    "reference": {"files": {"README.md": "Hello, world\nmore text\n"}}}


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))


def write(tmp_path, tasks, name="mini.json", **extra):
    path = tmp_path / name
    path.write_text(json.dumps({"canary": CANARY, "suite": "mini", "tasks": tasks, **extra}))
    return path


@pytest.mark.parametrize("bad, why", [
    ("../escape.py", "'..'"), ("/etc/passwd", "absolute"), ("", "empty"), ("a//b.py", "empty or '.'"),
    ("./x.py", "empty or '.'"), ("~/x.py", "absolute"), ("dir\\x.py", "backslash"), ("ok/../../x", "'..'")])
@pytest.mark.parametrize("where", ["workspace", "reference", "verification"])
def test_every_bad_path_is_refused_naming_the_file_task_and_path(tmp_path, bad, why, where):
    task = json.loads(json.dumps(README))
    if where == "verification":
        task["verification"]["files"][bad] = "x"
    else:
        task[where]["files"][bad] = "x"
    path = write(tmp_path, [ADD, task])
    with pytest.raises(TaskFileError) as err:
        load_suite(path)
    text = str(err.value)
    assert str(path) in text and "mini-readme" in text and repr(bad) in text and why in text
    assert not (tmp_path / "cache").exists()  # refused before anything was written


def test_a_path_under_a_file_and_a_broken_field_are_named(tmp_path):
    task = json.loads(json.dumps(README))
    task["workspace"]["files"]["README.md/inner"] = "x"
    with pytest.raises(TaskFileError, match=r"mini-readme\.workspace\.files.*lies under 'README.md'"):
        load_suite(write(tmp_path, [task]))
    broken = dict(ADD, verification={"type": "pytest", "command": "x"})
    with pytest.raises(TaskFileError, match=r"mini-add\.verification"):
        load_suite(write(tmp_path, [broken]))
    with pytest.raises(TaskFileError, match="id is used twice"):
        load_suite(write(tmp_path, [ADD, ADD]))


def test_fixtures_become_a_suite_that_validates(tmp_path):
    suite = load_suite(write(tmp_path, [ADD, README]))
    assert suite.name == "mini" and suite.ids == ["mini_add", "mini_readme"]
    readme = suite.get("mini_readme")
    assert readme.max_steps == 12 and readme.agent_timeout == 60 and readme.category == "programming"
    # the command's files are the hidden test's, never the agent's starting folder
    assert not (readme.setup_dir / "check.sh").exists() and (readme.setup_dir / "README.md").is_file()
    assert load_suite(write(tmp_path, [ADD, README])).fingerprint == suite.fingerprint  # same content, same suite
    results = validate_tasks(list(suite.tasks), tmp_path / "validate")
    assert [(v.task_id, v.status) for v in results] == [("mini_add", "ok"), ("mini_readme", "ok")]
    assert results[0].mutants_killed == (1, 1)


def test_a_fixture_without_a_reference_fails_validation(tmp_path):
    bare = {k: v for k, v in README.items() if k != "reference"}
    [v] = validate_tasks(list(load_suite(write(tmp_path, [bare])).tasks), tmp_path / "validate")
    assert v.status == "fail" and "reference" in v.reason


def test_the_oracle_passes_fixtures_and_null_none(tmp_path):
    suite = load_suite(write(tmp_path, [ADD, README]))
    for persona, want in (("oracle", "pass"), ("null", None)):
        results = []
        with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
            spec = RunSpec(run_id=persona, model=srv.model_id, conds=select_conditions("base"),
                           tasks=list(suite.tasks), url=srv.url, agent="builtin", runs_root=tmp_path / "runs",
                           work_root=tmp_path / "work", timeout_s=60)
            Scheduler(spec, suite, on_result=results.append).run()
        outcomes = {r["task"]: r["outcome"] for r in results}
        assert len(outcomes) == 2
        assert all(o == "pass" for o in outcomes.values()) if want else "pass" not in outcomes.values(), outcomes


@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_max_steps_ends_the_session_for_both_agents(tmp_path, agent):
    """A fixture's max_steps bounds the model requests of a session (builtin: it stops asking; pi: its proxy
    refuses the next request). The session ends there, not as an error, and the hidden test judges what is left."""
    two = json.loads(json.dumps(ADD))
    two["id"], two["limits"] = "two-files", {"max_steps": 1}
    two["reference"]["files"] = {"calc.py": "from helper import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n",
                                 "helper.py": "def plus(a, b):\n    return a + b\n"}
    suite = load_suite(write(tmp_path, [two]))
    results = []
    with ScriptedServer(persona="oracle", suite=suite, port=0) as srv:
        spec = RunSpec(run_id=agent, model=srv.model_id, conds=select_conditions("base"), tasks=list(suite.tasks),
                       url=srv.url, agent=agent, runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                       timeout_s=120)
        Scheduler(spec, suite, on_result=results.append).run()
        asked = srv.chat_requests
    [r] = results
    assert r["outcome"] in ("wrong", "crash") and not r["infra"], r
    assert r["stop_reason"] == "max_turns" and asked == 1, (r["stop_reason"], asked)


@pytest.mark.parametrize("name, size", [("core", 9), ("smoke", 3)])
def test_the_bundled_suites_validate_and_the_oracle_passes_them(tmp_path, name, size):
    suite = load_suite(name)
    assert suite.name == name and len(suite.tasks) == size
    results = validate_tasks(list(suite.tasks), tmp_path / "validate", workers=2)
    assert [v.task_id for v in results if v.status != "ok"] == []
    assert all(v.mutants_killed[0] == v.mutants_killed[1] >= 2 for v in results)
    assert name != "core" or all([a.as_expected for a in v.of_kind("alternative")] == [True] for v in results)
    for persona in ("oracle", "null"):
        got = []
        with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
            spec = RunSpec(run_id=f"{name}-{persona}", model=srv.model_id, conds=select_conditions("base"),
                           tasks=list(suite.tasks), url=srv.url, agent="builtin", runs_root=tmp_path / "runs",
                           work_root=tmp_path / "work", workers=2, timeout_s=120)
            Scheduler(spec, suite, on_result=got.append).run()
        passed = {r["task"] for r in got if r["outcome"] == "pass"}
        assert len(got) == size and passed == (set(suite.ids) if persona == "oracle" else set()), (persona, got)


def test_each_attempt_gets_a_report_and_its_changed_files(tmp_path):
    suite = load_suite(write(tmp_path, [ADD]))
    results = []
    with ScriptedServer(persona="oracle", suite=suite, port=0) as srv:
        spec = RunSpec(run_id="rep", model=srv.model_id, conds=select_conditions("base"), tasks=list(suite.tasks),
                       url=srv.url, agent="builtin", runs_root=tmp_path / "runs", work_root=tmp_path / "work")
        Scheduler(spec, suite, on_result=results.append).run()
    [r] = results
    assert r["outcome"] == "pass" and r["changed_files"] == [{"path": "calc.py", "change": "modified"}]
    report = (tmp_path / "runs" / "rep" / "base" / "mini_add" / "s1" / "report.md").read_text()
    assert "**pass**" in report and "-    return a - b" in report and "+    return a + b" in report
