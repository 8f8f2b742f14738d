"""The Dagster pipeline in-process: partitions against the scripted server, rows in DuckDB, the sensor, regrading."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import pytest
from conftest import REPO

from assets.boards import aggregates, boards
from assets.results import results
from assets.runs import agent_runs, gradings
from assets.suites import task_suites
from kbench_dagster.definitions import defs
from kbench_dagster.keys import model_key, parse_cell
from kbench_dagster.resources import (
    AgentSettings,
    ModelEndpoints,
    ResultsDB,
    SandboxSettings,
    ScriptedEndpoints,
    SuiteSource,
)
from kbench_dagster.sensors import new_model_release_sensor
from kbench_dagster.store import ResultsStore
from kbench_dagster.views import PASS_AT_1
from sandbox.servers.scripted import ScriptedServer


def resources(tmp_path, suite_dir, srv):
    return {
        "suite_source": SuiteSource(suites=[str(suite_dir)]),
        "endpoints": ModelEndpoints(urls={"scripted": srv.url}, slots=2),
        "agent": AgentSettings(agent="builtin", runs_root=str(tmp_path / "runs"), workers=2),
        "sandbox": SandboxSettings(work_root=str(tmp_path / "work")),
        "results_db": ResultsDB(path=str(tmp_path / "results.duckdb"), board_dir=str(tmp_path / "board")),
    }


def register(instance, res, model_id="scripted-oracle"):
    key = model_key(model_id, "scripted")
    instance.add_dynamic_partitions("model", [key])
    ResultsStore(res["results_db"].path).remember_model(key, model_id, "scripted")
    return key


def materialize(assets, res, instance, key, cell="base.s1"):
    return dg.materialize([task_suites, *assets], selection=assets, resources=res, instance=instance,
                          partition_key=dg.MultiPartitionKey({"model": key, "cell": cell}))


def test_definitions_load_with_every_piece():
    dg.Definitions.validate_loadable(defs)
    keys = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    assert keys == {"task_suites", "agent_runs", "gradings", "results", "aggregates", "boards", "kernel_tasks",
                    "kernel_runs", "kernel_gradings", "textjob_replies", "breakdown_answers", "trial_suite",
                    "trial_results", "trial_stats", "capability_suite", "capability_results", "capability_scores"}
    assert defs.resolve_job_def("benchmark").partitions_def is not None
    assert defs.resolve_sensor_def("new_model_release_sensor")


def test_model_keys_are_valid_partition_keys():
    assert model_key("qwen2.5-coder-1.5b-instruct", "local") == "qwen2.5-coder-1.5b-instruct@local"
    weird = model_key("org/model:q4|v2,[test]", "local")
    assert not set("|[],") & set(weird) and weird != model_key("org/model:q4|v2,[tesT]", "local")
    assert model_key("m", "a") != model_key("m", "b")
    with pytest.raises(ValueError, match="endpoint name"):
        model_key("m", "bad name")
    assert parse_cell("think.s2") == ("think", 2)
    with pytest.raises(ValueError, match="CONDITION.sSEED"):
        parse_cell("fast.s1")


def test_a_partition_lands_in_duckdb_and_a_rerun_replaces(tmp_path, suite_dir, server):
    res = resources(tmp_path, suite_dir, server)
    instance = dg.DagsterInstance.ephemeral()
    key = register(instance, res)
    for _ in range(2):
        out = materialize([agent_runs, gradings], res, instance, key)
        assert out.success
    store = ResultsStore(res["results_db"].path)
    _, rows = store.query("SELECT task, outcome, condition, seed FROM attempts ORDER BY task")
    assert rows == [("counterrors", "pass", "base", 1), ("fizz", "pass", "base", 1)]
    _, graded = store.query("SELECT count(*) FROM gradings")
    assert graded == [(2,)]
    mat = out.asset_materializations_for_node("agent_runs")[0]
    assert mat.metadata["rows"].value == 2 and mat.metadata["already_recorded"].value == 2
    assert mat.metadata["server_slots"].value == 2  # the endpoint's slots, held per session across runs
    out = dg.materialize([results, aggregates, boards], resources=res, instance=instance)
    assert out.success
    assert out.asset_materializations_for_node("aggregates")[0].metadata["groups"].value == 1
    board = Path(out.asset_materializations_for_node("boards")[0].metadata["index"].value)
    assert board.is_file() and "scripted-oracle" in board.read_text()
    _, scored = store.query(f"SELECT model, condition, runs, pass_at_1 FROM ({PASS_AT_1})")
    assert scored == [("scripted-oracle", "base", 2, 1.0)]


def test_changed_hidden_test_regrades_without_any_agent_call(tmp_path, suite_dir, server):
    res = resources(tmp_path, suite_dir, server)
    instance = dg.DagsterInstance.ephemeral()
    key = register(instance, res)
    assert materialize([agent_runs, gradings], res, instance, key).success
    calls = server.chat_requests
    test = suite_dir / "fizz" / "tests" / "test_task.py"
    # A stricter hidden test: fizzbuzz(15) must now also end with a trailing marker the agent never wrote.
    test.write_text(test.read_text().replace("kb.main()", textwrap.dedent("""
        @kb.case
        def new_rule():
            kb.eq(fb(3)[-1], "Fizz!", "fizzbuzz(3)[-1] under the new rule")


        kb.main()""")))
    out = materialize([gradings], res, instance, key)
    assert out.success
    assert server.chat_requests == calls, "regrading must not call the model"
    store = ResultsStore(res["results_db"].path)
    _, rows = store.query("SELECT task, outcome, regraded FROM gradings ORDER BY task")
    assert rows == [("counterrors", "pass", True), ("fizz", "wrong", True)]
    _, attempts = store.query("SELECT task, outcome FROM attempts ORDER BY task")
    assert attempts == [("counterrors", "pass"), ("fizz", "pass")]  # the run's own record is kept


def test_the_sensor_adds_a_new_model_once_and_requests_its_runs_once(tmp_path, suite_dir):
    """The fake endpoint (a scripted server in-process) lists one model; later a new release appears."""
    instance = dg.DagsterInstance.ephemeral()
    db = ResultsDB(path=str(tmp_path / "results.duckdb"))

    def tick(endpoints, cursor=None):
        ctx = dg.build_sensor_context(instance=instance, cursor=cursor,
                                      resources={"endpoints": endpoints, "results_db": db})
        result = new_model_release_sensor(ctx)
        if isinstance(result, dg.SensorResult):  # what the daemon does with the result
            for req in result.dynamic_partitions_requests:
                instance.add_dynamic_partitions(req.partitions_def_name, list(req.partition_keys))
        return result

    first = tick(ScriptedEndpoints(persona="null", declared={"scripted": {"hardware_class": "cpu"}}))
    assert isinstance(first, dg.SensorResult)
    [described] = ResultsStore(db.path).endpoints()  # each tick describes the endpoint as the server says it is
    assert (described["name"], described["engine"], described["hardware_class"]) == \
        ("scripted", "kbench scripted", "cpu")
    assert [r.run_key for r in first.run_requests] == [f"scripted-null@scripted:{c}"
                                                        for c in ("base.s1", "think.s1", "base8k.s1")]
    assert tick(ScriptedEndpoints(persona="null")).__class__ is dg.SkipReason
    release = tick(ScriptedEndpoints(persona="null", model_ids=["vendor/qwen-next:q4|v2"]))
    new_key = model_key("vendor/qwen-next:q4|v2", "scripted")
    assert {r.partition_key.keys_by_dimension["model"] for r in release.run_requests} == {new_key}
    assert sorted(instance.get_dynamic_partitions("model")) == sorted(["scripted-null@scripted", new_key])
    assert ResultsStore(db.path).model_of(new_key) == ("vendor/qwen-next:q4|v2", "scripted")


def test_an_unreachable_endpoint_is_skipped_with_the_reason(tmp_path):
    endpoints = ModelEndpoints(urls={"down": "http://127.0.0.1:9/v1"})
    db = ResultsDB(path=str(tmp_path / "results.duckdb"))
    ctx = dg.build_sensor_context(instance=dg.DagsterInstance.ephemeral(),
                                  resources={"endpoints": endpoints, "results_db": db})
    result = new_model_release_sensor(ctx)
    assert isinstance(result, dg.SkipReason) and "unreachable: down" in result.skip_message


MATERIALIZE_ONE = """
import sys, dagster as dg
sys.path.insert(0, {repo!r})
from assets.runs import agent_runs
from assets.suites import task_suites
from kbench_dagster.resources import *
res = dict(suite_source=SuiteSource(suites=[{suite!r}]), endpoints=ModelEndpoints(urls={{"scripted": {url!r}}}),
           agent=AgentSettings(agent="builtin", runs_root={runs!r}), sandbox=SandboxSettings(work_root={work!r}),
           results_db=ResultsDB(path={db!r}))
instance = dg.DagsterInstance.ephemeral()
instance.add_dynamic_partitions("model", ["scripted-oracle@scripted"])
out = dg.materialize([task_suites, agent_runs], selection=[agent_runs], resources=res, instance=instance,
                     partition_key=dg.MultiPartitionKey({{"model": "scripted-oracle@scripted", "cell": sys.argv[1]}}))
sys.exit(0 if out.success else 1)
"""


def test_two_partitions_at_once_in_two_processes_both_land(tmp_path, suite_dir):
    """Both land in DuckDB, and the endpoint's one slot (ModelEndpoints' default) holds across the two processes:
    the server, slow enough for sessions to overlap, never works on two requests at once."""
    with ScriptedServer(persona="oracle", port=0, latency=0.2) as server:
        res = resources(tmp_path, suite_dir, server)
        ResultsStore(res["results_db"].path).remember_model("scripted-oracle@scripted", "scripted-oracle", "scripted")
        script = MATERIALIZE_ONE.format(repo=str(REPO), suite=str(suite_dir), url=server.url,
                                        runs=str(tmp_path / "runs"), work=str(tmp_path / "work"),
                                        db=res["results_db"].path)
        procs = [subprocess.Popen([sys.executable, "-c", script, cell], cwd=REPO) for cell in ("base.s1", "think.s1")]
        assert [p.wait(timeout=240) for p in procs] == [0, 0]
        assert server.max_in_flight == 1
    _, rows = ResultsStore(res["results_db"].path).query(
        "SELECT condition, count(*) FROM attempts GROUP BY condition ORDER BY condition")
    assert rows == [("base", 2), ("think", 2)]
    manifests = [json.loads(p.read_text()) for p in sorted((tmp_path / "runs").glob("*/manifest.json"))]
    assert [(m["settings"]["model"], m["settings"]["conditions"][0]["name"], m["settings"]["seeds"])
            for m in manifests] == [("scripted-oracle", "base", [1]), ("scripted-oracle", "think", [1])]


KERNEL = '''import torch


def kernel(x, out):
    # a running sum: the task forbids the library reductions (sum, norm, dot, ...)
    out.copy_(torch.sqrt(torch.cumsum(x.double() ** 2, 0)[-1]).float())
'''


def test_kernel_gradings_grade_what_the_agent_wrote(tmp_path, suite_dir):
    """The agent (a replayed script) writes an L2-norm kernel into every kernel task; the grader scores it."""
    from assets.kernels import kernel_gradings, kernel_runs, kernel_tasks

    script = tmp_path / "replay.jsonl"
    check = "python -c 'import torch, reference; print(\"torch\", torch.__version__)'"  # the agent can try its kernel
    script.write_text("\n".join(json.dumps(line) for line in [
        {"tool_calls": [{"name": "bash", "arguments": {"command": check}}]},
        {"tool_calls": [{"name": "write", "arguments": {"path": "kernel.py", "content": KERNEL}}]},
        {"content": "kernel written"}]) + "\n")
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        res = resources(tmp_path, suite_dir, srv)
        res["agent"] = AgentSettings(agent="builtin", runs_root=str(tmp_path / "runs"))
        instance = dg.DagsterInstance.ephemeral()
        key = model_key("scripted-replay", "scripted")
        instance.add_dynamic_partitions("model", [key])
        ResultsStore(res["results_db"].path).remember_model(key, "scripted-replay", "scripted")
        out = dg.materialize([kernel_tasks, kernel_runs, kernel_gradings], selection=[kernel_runs, kernel_gradings],
                             resources=res, run_config={"ops": {"kernel_runs": {"config": {
                                 "tasks": "global_l2norm,rmsnorm_bf16"}}}},
                             instance=instance, partition_key=dg.MultiPartitionKey({"model": key, "cell": "base.s1"}))
    assert out.success
    _, rows = ResultsStore(res["results_db"].path).query(
        "SELECT task, status, score > 0, device_kind FROM kernel_gradings ORDER BY task")
    assert rows[0][:2] == ("global_l2norm", "ok") and rows[0][2] is True and rows[0][3] == "cpu"
    assert rows[1][0] == "rmsnorm_bf16" and rows[1][1] in ("incorrect", "runtime_error") and rows[1][2] is False
    (events,) = (tmp_path / "runs").glob(f"dg-builtin-{key}-kernels-base.s1-*/base/global_l2norm/s1/events.jsonl")
    events = events.read_text()
    assert "torch 2.13" in events


def test_endpoint_slots_come_from_the_server_unless_configured(monkeypatch):
    """With no slots configured, a partition uses as many sessions as the server says it serves at once (llama.cpp
    /props total_slots); a server that says nothing gets one; a configured count is used as given. `kbench ui`
    sizes the model_server pool the same way."""
    from kbench_dagster.ui import pool_slots

    with ScriptedServer(persona="oracle", port=0, slots=3) as three, ScriptedServer(persona="oracle", port=0) as mute:
        eps = ModelEndpoints(urls={"three": three.url, "mute": mute.url})
        assert eps.get("three").slots == 3
        assert eps.get("mute").slots == 1
        assert ModelEndpoints(urls={"three": three.url}, slots=2).get("three").slots == 2
        monkeypatch.delenv("KBENCH_SLOTS", raising=False)
        monkeypatch.setenv("KBENCH_ENDPOINTS", f"three={three.url},mute={mute.url}")
        assert pool_slots() == 3
        monkeypatch.setenv("KBENCH_SLOTS", "5")
        assert pool_slots() == 5
