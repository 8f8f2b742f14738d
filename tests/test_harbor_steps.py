"""Harbor multi-step tasks, graded step by step (our own two-step task): each step's workdir/ is uploaded and its
setup.sh run (and gone) before its session, its own verifier (with the shared tests/ helpers and its own
[steps.verifier.env]) grades right after it, a step below its min_reward ends the attempt, and the attempt passes only
when every step did; validate proves it (first step untouched fails, every step's solution passes) and the one run
loop gives the same through the scripted oracle and null agents."""

import json
from pathlib import Path

import pytest

from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from sandbox.tasks import steps
from sandbox.tasks.validation import prepare_workdir, validate_tasks
from task_defs import load_suite
from task_defs.errors import TaskFileError
from task_defs.importers.harbor import TESTS, load_harbor

SOURCE = Path(__file__).parent / "data" / "harbor_steps"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))


def test_the_steps_are_read_with_their_uploads_setup_verifier_env_and_shared_helpers():
    [(fx, _)] = load_harbor(SOURCE)[1]
    assert [s.name for s in fx.steps] == ["count", "by-kind"] and fx.unavailable is None
    count, by_kind = fx.steps
    assert count.min_reward == 1.0 and count.test_timeout_seconds == 30 and by_kind.min_reward is None
    assert by_kind.upload.files == {"kinds.txt": "fruit\nvegetable\n"} and "rm -- \"$0\"" in by_kind.setup
    assert f"{TESTS}/lib.sh" in count.verification.files and f"{TESTS}/lib.sh" in by_kind.verification.files
    assert "KIND=fruit" in by_kind.verification.command and "KIND=" not in count.verification.command
    assert fx.limits.timeout_seconds == 120  # each session gets the longest step's time
    task = load_suite(SOURCE).get("tally_steps")
    assert task.category == "chain" and len(task.prompts) == 2 and [s.name for s in task.steps] == ["count", "by-kind"]


def test_validate_proves_each_step(tmp_path):
    [v] = validate_tasks(list(load_suite(SOURCE).tasks), tmp_path / "v", workers=1)
    assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v


def test_a_step_is_laid_before_its_session_and_its_setup_leaves_nothing_behind(tmp_path):
    task = load_suite(SOURCE).get("tally_steps")
    work = prepare_workdir(task, tmp_path / "w")
    assert not (work / "kinds.txt").exists()
    steps.lay_step(task, 1, work)
    assert (work / "kinds.txt").read_text() == "fruit\nvegetable\n"
    assert (work / "items.txt").read_text().endswith("plum fruit\n") and not (work / "setup.sh").exists()


def test_the_run_loop_grades_each_step_after_its_session_and_stops_below_min_reward(tmp_path):
    suite = load_suite(SOURCE)
    for persona, outcome, said in (("oracle", "pass", "steps: count pass (reward 1), by-kind pass (reward 1)"),
                                   ("null", "wrong", "steps: count wrong (reward 0), by-kind not run")):
        got = []
        with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
            spec = RunSpec(run_id=persona, model=srv.model_id, conds=select_conditions("base"),
                           tasks=list(suite.tasks), url=srv.url, agent="builtin", runs_root=tmp_path / "runs",
                           work_root=tmp_path / "work", workers=1, timeout_s=120)
            Scheduler(spec, suite, on_result=got.append).run()
        [r] = got
        assert r["outcome"] == outcome and r["detail"].startswith(said) and not r["infra"], r
        kept = list((tmp_path / "runs" / persona).rglob(steps.RESULTS))
        assert len(kept) == 1  # each step's grade, kept by the harness beside the attempt's record
        graded = [json.loads(line)["step"] for line in kept[0].read_text().splitlines()]
        assert graded == (["count", "by-kind"] if persona == "oracle" else ["count"])


def test_a_step_folder_or_table_that_is_missing_is_refused_naming_it(tmp_path):
    import shutil

    folder = shutil.copytree(SOURCE / "tally-steps", tmp_path / "t")
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace('name = "by-kind"', 'name = "by-colour"'))
    with pytest.raises(TaskFileError, match=r"steps\[2\]\.name"):
        load_harbor(folder)
    toml.write_text('schema_version = "1.1"\n')
    with pytest.raises(TaskFileError, match="steps"):
        load_harbor(folder)


def test_a_regrade_keeps_a_stepwise_verdict_as_it_was(tmp_path, monkeypatch):
    """Its final files alone cannot be graded step by step again: a regrade leaves the verdict and says so."""
    from sandbox.engine.kinds import as_kind
    from sandbox.engine.regrade import regrade_run

    suite = load_suite(SOURCE)
    got = []
    with ScriptedServer(persona="oracle", suite=suite, port=0) as srv:
        spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=list(suite.tasks),
                       url=srv.url, agent="builtin", runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                       workers=1, timeout_s=120)
        Scheduler(spec, suite, on_result=got.append).run()
    kind = as_kind(suite)
    monkeypatch.setattr(kind, "fingerprint", "another suite version")
    summary = regrade_run(tmp_path / "runs" / "r", kind, tmp_path / "rework", spec.isolation)
    assert summary.stepwise == ["tally_steps"] and summary.regraded == []
    [result] = list((tmp_path / "runs" / "r").rglob("result.json"))
    assert json.loads(result.read_text())["outcome"] == "pass"


def test_a_steps_reward_is_the_checks_own_last_line(tmp_path):
    """For min_reward: the Harbor check's final line, the least of several dimensions; a line test.sh's output
    printed earlier in the same shape does not count."""
    out = tmp_path / "out.txt"
    out.write_text("reward 1 (test.sh exited 0)\nsome output\nreward speed=1 accuracy=0.5 (test.sh exited 1)\n")
    assert steps._reward("wrong", out) == 0.5
    out.write_text("tests/test.sh wrote no reward\n")
    assert steps._reward("wrong", out) == 0.0 and steps._reward("pass", None) == 1.0
