"""The text jobs, the breakdown and the tool-use trials through Dagster (in-process materialisation) store the same
rows as the CLI."""

from pathlib import Path

import dagster as dg

from assets.capability import capability_results
from assets.language import breakdown_answers, textjob_replies
from assets.trials import trial_results
from kbench_dagster.cli import main
from kbench_dagster.keys import model_key
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

# oracle_ms is the grading's own CPU time, a measurement like duration_s: never the same twice
VOLATILE = {"partition_key", "run_id", "started_at", "finished_at", "graded_at", "duration_s", "ttft_s", "oracle_ms"}


def _rows(db: Path, table: str, order: str) -> list[dict]:
    cols, found = ResultsStore(db).query(f"SELECT * FROM {table} ORDER BY {order}")
    return [{c: v for c, v in zip(cols, r) if c not in VOLATILE} for r in found]


def _materialize(tmp_path, srv, asset, **settings):
    """One cell of `asset`, its kind's own `settings` as its run config."""
    res = {"endpoints": ModelEndpoints(urls={"scripted": srv.url}, slots=2),
           "agent": AgentSettings(agent="builtin", runs_root=str(tmp_path / "runs"), workers=2),
           "sandbox": SandboxSettings(work_root=str(tmp_path / "work")),
           "results_db": ResultsDB(path=str(tmp_path / "dagster.duckdb"), board_dir=str(tmp_path / "board"))}
    instance = dg.DagsterInstance.ephemeral()
    key = model_key(srv.model_id, "scripted")
    ResultsStore(tmp_path / "dagster.duckdb").remember_model(key, srv.model_id, "scripted")
    instance.add_dynamic_partitions("model", [key])
    run_config = {"ops": {asset.key.to_user_string(): {"config": settings}}} if settings else None
    result = dg.materialize([asset], resources=res, instance=instance, run_config=run_config,
                            partition_key=dg.MultiPartitionKey({"model": key, "cell": "base.s1"}))
    assert result.success
    return tmp_path / "dagster.duckdb"


def _cli(tmp_path, srv, *args):
    assert main([*args, "--url", srv.url, "--model", srv.model_id, "--runs", str(tmp_path / "runs"),
                 "--work", str(tmp_path / "work"), "--db", str(tmp_path / "cli.duckdb"), "--parallel", "2"]) == 0
    return tmp_path / "cli.duckdb"


def test_text_jobs_through_dagster_and_the_cli_give_the_same_rows(tmp_path):
    with ScriptedServer(persona="noisy", suite="textjobs", port=0) as srv:
        dagster_db = _materialize(tmp_path, srv, textjob_replies, limit=4)
        cli_db = _cli(tmp_path, srv, "textjobs", str(tmp_path / "out.json"), "--limit", "4")
    made_by_dagster = _rows(dagster_db, "textjob_replies", "job, item")
    assert len(made_by_dagster) == 20 and made_by_dagster == _rows(cli_db, "textjob_replies", "job, item")
    assert 0 < sum(r["passed"] for r in made_by_dagster) < 20


def test_the_breakdown_through_dagster_and_the_cli_give_the_same_rows(tmp_path):
    with ScriptedServer(persona="noisy", suite="breakdown", port=0) as srv:
        dagster_db = _materialize(tmp_path, srv, breakdown_answers, only="invoices")
        cli_db = _cli(tmp_path, srv, "breakdown", str(tmp_path / "out.json"), "--only", "invoices",
                      "--agent", "builtin")
    made_by_dagster = _rows(dagster_db, "breakdown_answers", "way, item")
    assert len(made_by_dagster) == 3 * 24 and made_by_dagster == _rows(cli_db, "breakdown_answers", "way, item")


def test_the_trials_through_dagster_and_the_cli_give_the_same_rows(tmp_path):
    with ScriptedServer(persona="oracle", suite="trials", port=0) as srv:
        dagster_db = _materialize(tmp_path, srv, trial_results, only="select,extract", limit=6)
        # the CLI names the endpoint as Dagster's resource does, so the rows' endpoint columns agree
        assert main(["endpoints", "add", "scripted", srv.url, "--db", str(tmp_path / "cli.duckdb")]) == 0
        assert main(["trials", "run", str(tmp_path / "t.json"), "--endpoint", "scripted", "--model", srv.model_id,
                     "--only", "select,extract", "--limit", "6", "--parallel", "2", "--runs", str(tmp_path / "runs"),
                     "--work", str(tmp_path / "work"), "--db", str(tmp_path / "cli.duckdb")]) == 0
    made_by_dagster = _rows(dagster_db, "trial_results", "trial")
    assert len(made_by_dagster) == 12 and all(r["outcome"] == "pass" for r in made_by_dagster)
    assert made_by_dagster == _rows(tmp_path / "cli.duckdb", "trial_results", "trial")


def _gate_check(monkeypatch, found: dict, problems: list[str] | None = None):
    """The trial suite's blocking check, its gate run for real and the probe's report given: the probe over every
    trial (its strace'd shell forgeries the bulk of it) is the same function `kbench trials probe` runs over the
    real suite in tests/test_trials_kind.py; here what is proven is what the check makes of a report."""
    import assets.trials as trials_assets

    monkeypatch.setattr(trials_assets, "probe", lambda kind: found)
    if problems is not None:
        monkeypatch.setattr(trials_assets, "gate_problems", lambda kind: problems)
    result = dg.materialize([trials_assets.trial_suite, trials_assets.trials_pass_the_gate],
                            instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
    [check] = result.get_asset_check_evaluations()
    return check


def test_the_trial_gate_check_passes_a_clean_probe_and_blocks_a_structural_score(monkeypatch):
    clean = {"an empty reply": {"kind": "structural", "score": 0.0, "trials": 40, "share": 0.0},
             "the first tool offered": {"kind": "chance", "score": 9.0, "trials": 40, "share": 0.225},
             "the most common label": {"kind": "chance", "score": 3.0, "trials": 12, "share": 0.25}}
    check = _gate_check(monkeypatch, clean)
    assert check.passed and check.metadata["chance_floor"].value == 0.25 and check.metadata["problems"].value == 0
    leaking = {**clean, "run true": {"kind": "structural", "score": 1.0, "trials": 47, "share": 1 / 47}}
    check = _gate_check(monkeypatch, leaking, ["prompt repeated: select_weather_oslo"])
    assert not check.passed and check.metadata["problems"].value == 2
    assert "run true scores 2.13%" in check.metadata["details"].value
    assert "prompt repeated: select_weather_oslo" in check.metadata["details"].value


def test_the_stats_asset_reads_the_strikes(tmp_path):
    from assets.trials import trial_stats
    from kbench_dagster.commands.trials_report import strike_rows
    from kbench_dagster.reporting.trial_stats import strike_stats

    with ScriptedServer(persona="oracle", suite="trials", port=0) as srv:
        db = _materialize(tmp_path, srv, trial_results, only="classify", limit=5)
    res = {"results_db": ResultsDB(path=str(db), board_dir=str(tmp_path / "board"))}
    out = dg.materialize([trial_stats], resources=res, instance=dg.DagsterInstance.ephemeral())
    doc = out.output_for_node("trial_stats")
    [run_id] = doc["strikes"]
    assert doc["strikes"][run_id] == strike_stats(strike_rows(ResultsStore(db), run_id))
    assert doc["strikes"][run_id]["overall"]["trials"] == 5 and doc["stale"] == []


def test_the_capability_items_through_dagster_and_the_cli_give_the_same_rows(tmp_path):
    with ScriptedServer(persona="oracle", suite="capability", port=0) as srv:
        dagster_db = _materialize(tmp_path, srv, capability_results, only="basic,iac,tool_use",
                                  limit=2)
        assert main(["endpoints", "add", "scripted", srv.url, "--db", str(tmp_path / "cli.duckdb")]) == 0
        assert main(["capability", "run", str(tmp_path / "c.json"), "--endpoint", "scripted", "--model",
                     srv.model_id, "--only", "basic,iac,tool_use", "--limit", "2", "--seeds", "1", "--parallel", "2",
                     "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db",
                     str(tmp_path / "cli.duckdb")]) == 0
    made_by_dagster = _rows(dagster_db, "capability_results", "item")
    assert len(made_by_dagster) == 6 and all(r["outcome"] == "pass" for r in made_by_dagster)
    assert made_by_dagster == _rows(tmp_path / "cli.duckdb", "capability_results", "item")
