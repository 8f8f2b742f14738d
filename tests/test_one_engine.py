"""One engine: the CLI and Dagster store the same rows for a cell, regrading keeps report, board and SQL in step,
a changed suite never blocks a new cell, and a model on two endpoints is two benchmarked rows."""

import json
import textwrap
from pathlib import Path

import dagster as dg

from assets.runs import agent_runs, gradings
from assets.suites import task_suites
from kbench_dagster import pools
from kbench_dagster.cli import main
from kbench_dagster.definitions import defs
from kbench_dagster.keys import model_key
from kbench_dagster.reporting.board_data import aggregates, attempts_for_board
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.reporting.loaders import load_results
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings, SuiteSource
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

# What may differ between two runs of the same cell: ids, places and clocks.
VOLATILE = {"partition_key", "run_id", "record_path", "started_at", "finished_at", "graded_at", "created",
            "duration_s", "wall_s", "test_duration_s", "bytes", "ttft_s", "gen_tok_s", "server_gen_tok_s", "total_s",
            "gen_s"}
TABLES = {"attempts": "condition, task, seed", "gradings": "condition, task, seed", "runs": "condition, seed",
          "events_summary": "condition, task, seed", "requests": "condition, task, seed, n"}


def resources(tmp_path, suite_dir, urls: dict[str, str], db="dagster.duckdb"):
    return {
        "suite_source": SuiteSource(suites=[str(suite_dir)]),
        "endpoints": ModelEndpoints(urls=urls, slots=2),
        "agent": AgentSettings(agent="builtin", runs_root=str(tmp_path / "runs"), workers=2),
        "sandbox": SandboxSettings(work_root=str(tmp_path / "work")),
        "results_db": ResultsDB(path=str(tmp_path / db), board_dir=str(tmp_path / "board")),
    }


def materialize(res, instance, key, cell="base.s1", assets=(agent_runs, gradings)):
    return dg.materialize([task_suites, *assets], selection=list(assets), resources=res, instance=instance,
                          partition_key=dg.MultiPartitionKey({"model": key, "cell": cell}))


def register(res, instance, model_id, endpoint):
    key = model_key(model_id, endpoint)
    ResultsStore(res["results_db"].path).remember_model(key, model_id, endpoint)
    instance.add_dynamic_partitions("model", [key])
    return key


def rows(db: Path, table: str, order: str) -> list[dict]:
    cols, found = ResultsStore(db).query(f"SELECT * FROM {table} ORDER BY {order}")
    return [{c: v for c, v in zip(cols, r) if c not in VOLATILE} for r in found]


def manifest_row(db: Path) -> dict:
    cols, found = ResultsStore(db).query("SELECT * FROM manifests")
    assert len(found) == 1
    m = dict(zip(cols, found[0]))
    settings = json.loads(m.pop("settings"))
    settings.pop("run_id")
    versions = json.loads(m.pop("versions"))
    return {**{k: v for k, v in m.items() if k not in VOLATILE}, "settings": settings, "versions": versions}


def test_a_cell_through_dagster_and_through_kbench_run_gives_the_same_rows(tmp_path, suite_dir, server):
    res = resources(tmp_path, suite_dir, {"scripted": server.url})
    instance = dg.DagsterInstance.ephemeral()
    key = register(res, instance, "scripted-oracle", "scripted")
    assert materialize(res, instance, key).success
    cli_db = tmp_path / "cli.duckdb"
    # the CLI's way to the endpoint Dagster's resource names: add it under the same name, run against the name
    assert main(["endpoints", "add", "scripted", server.url, "--db", str(cli_db)]) == 0
    assert main(["--suite", str(suite_dir), "run", "plain", "--model", "scripted-oracle", "--endpoint", "scripted",
                 "--agent", "builtin", "--conds", "base", "--workers", "2", "--server-slots", "2",
                 "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(cli_db)]) == 0
    dagster_db = Path(res["results_db"].path)
    for table, order in TABLES.items():
        made_by_dagster, made_by_cli = rows(dagster_db, table, order), rows(cli_db, table, order)
        assert made_by_dagster and made_by_dagster == made_by_cli, table
    assert manifest_row(dagster_db) == manifest_row(cli_db)
    # both made by the same settings: the pass@1 of the two stores is the same number
    assert aggregates(ResultsStore(dagster_db))["groups"][0]["summary"]["pass@1"] == 1.0


def test_the_board_of_a_dagster_run_shows_its_endpoint_and_hardware(tmp_path, suite_dir, server):
    res = resources(tmp_path, suite_dir, {"scripted": server.url})
    res["endpoints"] = ModelEndpoints(urls={"scripted": server.url}, slots=2,
                                      declared={"scripted": {"hardware": "Test rig <b>", "hardware_class": "mid-gpu"}})
    instance = dg.DagsterInstance.ephemeral()
    assert materialize(res, instance, register(res, instance, "scripted-oracle", "scripted")).success
    store = ResultsStore(res["results_db"].path)
    [group] = aggregates(store)["groups"]
    # declared in the resource, so no guess from this machine; the engine as the server names itself
    assert (group["server"], group["engine"], group["hardware_class"], group["hardware"]) == \
        ("scripted", "kbench scripted", "mid-gpu", "Test rig <b>")
    index = build_board(store, tmp_path / "board").read_text()
    assert ">mid-gpu | builtin | base<" in index and "Test rig &lt;b&gt;" in index and server.url not in index


def stricter_fizz(suite_dir: Path) -> None:
    """A hidden test the oracle's fizz no longer passes: fizzbuzz(3) must end with a marker it never writes."""
    test = suite_dir / "fizz" / "tests" / "test_task.py"
    test.write_text(test.read_text().replace("kb.main()", textwrap.dedent("""
        @kb.case
        def new_rule():
            kb.eq(fb(3)[-1], "Fizz!", "fizzbuzz(3)[-1] under the new rule")


        kb.main()""")))


def test_kbench_regrade_then_report_board_and_sql_agree(tmp_path, suite_dir, server, capsys):
    db, runs = tmp_path / "cli.duckdb", tmp_path / "runs"
    assert main(["--suite", str(suite_dir), "run", "r1", "--model", "scripted-oracle", "--url", server.url,
                 "--agent", "builtin", "--conds", "base", "--runs", str(runs), "--work", str(tmp_path / "work"),
                 "--db", str(db)]) == 0
    stricter_fizz(suite_dir)
    calls = server.chat_requests
    capsys.readouterr()
    assert main(["--suite", str(suite_dir), "regrade", "--runs", str(runs), "--db", str(db),
                 "--work", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "fizz" in out and "pass     -> wrong" in out and "r1: regraded 2, current 0" in out
    assert server.chat_requests == calls, "regrading must not call the model"
    store = ResultsStore(db)
    report = {r["task"]: r["outcome"] for r in load_results(runs, "r1")}
    sql = dict(store.query("SELECT task, outcome FROM scored ORDER BY task")[1])
    board = {r["task"]: r["outcome"] for r in attempts_for_board(store)}  # what the task pages list
    assert report == sql == board == {"counterrors": "pass", "fizz": "wrong"}
    (group,) = aggregates(store)["groups"]
    assert group["summary"]["pass@1"] == 0.5 and {t: v["c"] for t, v in group["tasks"].items()} == {
        "counterrors": 1, "fizz": 0}
    build_board(store, tmp_path / "board")
    (page,) = (tmp_path / "board" / "task").glob("fizz*.html")
    assert "wrong" in page.read_text()
    # once current, a second regrade grades nothing
    assert main(["--suite", str(suite_dir), "regrade", "r1", "--runs", str(runs), "--db", str(db),
                 "--work", str(tmp_path / "work")]) == 0
    assert "r1: regraded 0, current 2" in capsys.readouterr().out
    _, graded = ResultsStore(db).query("SELECT count(*) FROM gradings")
    assert graded == [(2,)]  # replaced, never added beside


def test_a_new_cell_after_the_hidden_tests_changed_runs_without_conflict(tmp_path, suite_dir, server):
    res = resources(tmp_path, suite_dir, {"scripted": server.url})
    instance = dg.DagsterInstance.ephemeral()
    key = register(res, instance, "scripted-oracle", "scripted")
    assert materialize(res, instance, key, "base.s1").success
    stricter_fizz(suite_dir)
    assert materialize(res, instance, key, "base.s2").success  # new cell, new suite version
    assert materialize(res, instance, key, "base.s1", assets=(gradings,)).success  # old cell: regraded
    _, found = ResultsStore(res["results_db"].path).query(
        "SELECT seed, task, outcome, regraded FROM scored ORDER BY seed, task")
    assert found == [(1, "counterrors", "pass", True), (1, "fizz", "wrong", True),
                     (2, "counterrors", "pass", False), (2, "fizz", "wrong", False)]
    manifests = sorted((tmp_path / "runs").glob("*/manifest.json"))
    assert len(manifests) == 2 and len({json.loads(m.read_text())["suite"]["fingerprint"] for m in manifests}) == 2


def test_one_model_on_two_endpoints_is_two_partitions_and_two_board_rows(tmp_path, suite_dir):
    with ScriptedServer(persona="oracle", port=0) as a, ScriptedServer(persona="oracle", port=0) as b:
        res = resources(tmp_path, suite_dir, {"east": a.url, "west": b.url})
        instance = dg.DagsterInstance.ephemeral()
        keys = [register(res, instance, "scripted-oracle", ep) for ep in ("east", "west")]
        assert len(set(keys)) == 2 and sorted(instance.get_dynamic_partitions("model")) == sorted(keys)
        for key in keys:
            assert materialize(res, instance, key).success
        assert a.chat_requests and b.chat_requests  # both servers were benchmarked
        urls = [a.url, b.url]
    store = ResultsStore(res["results_db"].path)
    groups = aggregates(store)["groups"]
    assert sorted(g["server"] for g in groups) == ["east", "west"]  # by name, never by a port
    index = build_board(store, tmp_path / "board").read_text()
    assert ">east<" in index and ">west<" in index and not any(url in index for url in urls)


def test_models_add_list_remove_share_the_sensors_table(tmp_path, capsys, monkeypatch):
    db = tmp_path / "m.duckdb"
    monkeypatch.setenv("KBENCH_ENDPOINTS", "local=http://127.0.0.1:9/v1,big=http://127.0.0.1:10/v1")
    assert main(["models", "add", "qwen:7b", "--endpoint", "big", "--db", str(db)]) == 0
    assert "added: qwen_7b-" in capsys.readouterr().out
    assert main(["models", "add", "qwen:7b", "--endpoint", "nowhere", "--db", str(db)]) == 2
    assert "no endpoint 'nowhere'; configured (KBENCH_ENDPOINTS): local, big" in capsys.readouterr().err
    assert ResultsStore(db).model_of(model_key("qwen:7b", "big")) == ("qwen:7b", "big")
    assert main(["models", "list", "--db", str(db)]) == 0
    assert "@big" in capsys.readouterr().out
    # the sensor makes the registered model a partition and benchmarks it, then drops it once removed
    from kbench_dagster.sensors import new_model_release_sensor

    instance = dg.DagsterInstance.ephemeral()

    def tick():
        ctx = dg.build_sensor_context(instance=instance, resources={
            "endpoints": ModelEndpoints(urls={"down": "http://127.0.0.1:9/v1"}), "results_db": ResultsDB(path=str(db))})
        result = new_model_release_sensor(ctx)
        if isinstance(result, dg.SensorResult):
            for req in result.dynamic_partitions_requests:
                if isinstance(req, dg.AddDynamicPartitionsRequest):
                    instance.add_dynamic_partitions(req.partitions_def_name, list(req.partition_keys))
                else:
                    for k in req.partition_keys:
                        instance.delete_dynamic_partition(req.partitions_def_name, k)
        return result

    first = tick()
    assert {r.partition_key.keys_by_dimension["model"] for r in first.run_requests} == {model_key("qwen:7b", "big")}
    assert main(["models", "remove", "qwen:7b", "--endpoint", "big", "--db", str(db)]) == 0
    tick()
    assert instance.get_dynamic_partitions("model") == []
    assert main(["models", "remove", "qwen:7b", "--endpoint", "big", "--db", str(db)]) == 2


def test_pools_are_named_once():
    graph = defs.resolve_asset_graph()
    used = set().union(*(graph.get(k).pools for k in graph.get_all_asset_keys()))
    assert used == set(pools.POOLS)  # each pool is used, and by its one name
