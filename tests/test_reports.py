"""The report commands on real runs against the scripted server: report, collect, export, compare, triage."""

import argparse
import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from bundled import SUITE

from kbench_dagster.cli import main as cli_main
from kbench_dagster.ingest import ingest_run
from kbench_dagster.reporting import commands, compare, export, loaders, stats, tables, triage
from kbench_dagster.store import ResultsStore
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select

TASKS = "fizz,clamp,counterrors,hellosh"


def real_run(root: Path, run_id: str, persona: str, tasks: str = TASKS, seeds: int = 2, **server) -> Path:
    """One run of the builtin agent against the scripted server, records under root/runs."""
    with ScriptedServer(persona=persona, port=0, **server) as srv:
        spec = RunSpec(run_id=run_id, model=f"scripted-{persona}", conds=select_conditions("base"),
                       tasks=select(SUITE, tasks), url=srv.url, agent="builtin", runs_root=root / "runs",
                       work_root=root / "work", workers=4, timeout_s=60, seeds=seeds, server_wait_s=5,
                       server_slots=0)
        Scheduler(spec, SUITE).run()
    return root / "runs"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reports")
    real_run(root, "oracle", "oracle")
    real_run(root, "null", "null")
    real_run(root, "liar", "liar", tasks="fizz,counterrors")
    real_run(root, "chaos", "chaos", tasks="fizz", seeds=1, chaos_delay=0.05)
    return root / "runs"


def cli(argv: list[str], capsys) -> tuple[int, str]:
    rc = cli_main(argv)
    return rc, capsys.readouterr().out


def test_add_report_parsers_registers_every_command():
    p = argparse.ArgumentParser()
    commands.add_report_parsers(p.add_subparsers(dest="command", required=True))
    for argv in (["report", "R"], ["collect", "A", "B"], ["export", "--format", "json"], ["compare", "A", "B"],
                 ["triage", "R", "--task", "fizz"], ["board", "--out", "x"]):
        assert callable(p.parse_args(argv).func)


def test_report_prints_the_three_tables_with_intervals(runs, capsys):
    rc, out = cli(["report", "oracle", "--runs", str(runs)], capsys)
    assert rc == 0
    assert "pass@1 [95% CI]" in out and "100.0% [68, 100]" in out  # 8 of 8: Wilson lower bound 67.6%
    assert "\nfizz" in out and "2/2" in out  # the per-task table
    assert "mean s" in out and "false claims" in out  # the mechanics table
    assert "task-clustered SE" in out and "pass@2 100.0%" in out
    assert "fewer than 3 seeds" in out  # two seeds are not publishable


def test_report_counts_infra_as_attrition_not_as_failure(runs, capsys):
    rc, out = cli(["report", "chaos", "--runs", str(runs)], capsys)
    assert rc == 0 and "1 infra failures" in out and "attrition 100.0%" in out
    assert "attrition 100.0% above 5%" in out


def test_report_of_a_missing_run_is_a_clear_error(runs, capsys):
    assert cli_main(["report", "nope", "--runs", str(runs)]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


def test_collect_is_valid_json_against_the_schema(runs, capsys):
    rc, out = cli(["collect", "oracle", "null", "liar", "--runs", str(runs)], capsys)
    assert rc == 0
    doc = json.loads(out)
    export.validate_results(doc)
    oracle, null, liar = doc["runs"]
    base = oracle["conditions"][0]
    assert base["pass_at_1"] == 1.0 and base["runs"] == 8 and base["per_task"]["fizz"] == {
        "passes": 2, "runs": 2, "infra": 0, "category": "programming", "tier": "easy"}
    assert null["conditions"][0]["pass_at_1"] == 0.0
    assert liar["false_claims"] == 4 and liar["conditions"][0]["false_claims"] == 4
    broken = json.loads(out)
    broken["runs"][0]["conditions"][0]["pass_at_1"] = 1.5
    with pytest.raises(ValueError, match="pass_at_1"):
        export.validate_results(broken)


def test_export_csv_and_json_from_records_and_from_the_store(runs, tmp_path, capsys):
    rc, out = cli(["export", "oracle", "--format", "csv", "--runs", str(runs)], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and len(rows) == 8 and {r["outcome"] for r in rows} == {"pass"}
    store = ResultsStore(tmp_path / "r.duckdb")
    for rid in ("oracle", "null"):
        ingest_run(store, runs, rid)
    rc, out = cli(["export", "--format", "json", "--db", str(tmp_path / "r.duckdb")], capsys)
    data = json.loads(out)
    assert rc == 0 and len(data) == 16 and {d["run_id"] for d in data} == {"oracle", "null"}
    rc, out = cli(["export", "null", "--format", "json", "--db", str(tmp_path / "r.duckdb")], capsys)
    assert {d["outcome"] for d in json.loads(out)} == {"nofile"}


def test_compare_is_paired_with_mcnemar_on_one_seed(runs, capsys):
    rc, out = cli(["compare", "oracle", "null", "--runs", str(runs)], capsys)
    assert rc == 0
    [c] = compare.compare(loaders.load_results(runs, "oracle"), loaders.load_results(runs, "null"))
    assert c["tasks"] == 4 and c["mean_diff"] == 1.0
    # four tasks, one seed: 4 discordant pairs (never 8 from pooling both seeds)
    assert (c["mcnemar"]["b"], c["mcnemar"]["c"]) == (4, 0) and c["mcnemar"]["p_exact"] == pytest.approx(0.125)
    assert "McNemar on seed 1 only" in out and "minimum detectable gap" in out
    assert "programming  A better: clamp, fizz" in out and "terminal     A better: counterrors, hellosh" in out


def test_triage_ranks_causes_and_shows_one_tasks_evidence(runs, capsys):
    rc, out = cli(["triage", "null", "--runs", str(runs)], capsys)
    assert rc == 0 and "8 of 8 attempts did not pass" in out
    assert out.splitlines()[3].split()[0] == "nofile"
    rc, out = cli(["triage", "chaos", "--runs", str(runs)], capsys)
    assert "server error (infra)" in out
    rc, out = cli(["triage", "oracle", "--runs", str(runs), "--task", "fizz"], capsys)
    assert rc == 0 and "[user]" in out and "[tool call write" in out and "[tool result write]" in out
    assert "KBTEST-RESULT" in out and "--- fizz.py" in out and "def fizzbuzz" in out


def test_failure_causes_and_crash_kinds():
    r = {"outcome": "crash", "detail": ""}
    assert triage.failure_cause(r, "CRASH loading fizz.py: SyntaxError('bad', ...)") == "crash: SyntaxError"
    assert triage.failure_cause(r, "CRASH small: ZeroDivisionError('division by zero')") == "crash: ZeroDivisionError"
    assert triage.failure_cause(r, "CRASH x: fizz has no function fizzbuzz") == "crash: missing function"
    assert triage.failure_cause({"outcome": "crash", "detail": "the test session was killed by the memory watchdog"}) \
        == "crash: killed by the memory watchdog"
    assert triage.failure_cause({"outcome": "nofile", "tool_format_errors": 2}) == "tool-format errors"
    assert triage.failure_cause({"outcome": "wrong", "cutoffs": 1}) == "cut-off replies"
    assert triage.failure_cause({"outcome": "wrong", "agent_timeout": True}) == "agent timeout"
    assert triage.failure_cause({"outcome": "timeout"}) == "test timeout"
    assert triage.failure_cause({"outcome": "wrong", "server_error": "400 bad request"}) == "server error"
    assert triage.failure_cause({"outcome": "wrong"}) == "wrong output"


def test_report_numbers_come_from_the_stats_module(runs):
    results = loaders.load_results(runs, "oracle") + loaders.load_results(runs, "null")
    [row] = tables.condition_rows(results)
    assert row["pass@1"] == stats.summarize(results)["pass@1"] == pytest.approx(0.5)


def test_a_partial_record_left_by_a_kill_is_neither_reported_nor_breaks_ingest(runs, tmp_path):
    """A kill between writing result.json into sN.partial and renaming the folder leaves that folder behind; the
    rerun redoes the attempt. Until then, reports and the store must see only finished attempts."""
    root = tmp_path / "runs"
    shutil.copytree(runs / "oracle", root / "oracle")
    finished = sorted((root / "oracle").glob("*/*/s1"))[0]
    shutil.copytree(finished, finished.with_name("s3.partial"))
    got = loaders.load_results(root, "oracle")
    assert got and not any(r["record_path"].endswith(".partial") for r in got)
    store = ResultsStore(tmp_path / "kbench.duckdb")
    counts = ingest_run(store, root, "oracle")
    _, rows = store.query("SELECT count(*), max(seed) FROM attempts")
    assert rows == [(len(got), 2)] and counts["attempts"] == len(got)


def test_links_the_agent_left_are_shown_never_followed(runs, tmp_path, capsys, monkeypatch):
    """A link in the final files to a host secret, the process environment (with the key) or a hidden test must
    appear as a link: triage and the board read records as the host's user, and the board gets published."""
    from kbench_dagster.reporting.board_trajectory import final_files

    monkeypatch.setenv("KBENCH_API_KEY", "sk-linked-secret-123")
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host-only-contents\n")
    root = tmp_path / "runs"
    shutil.copytree(runs / "oracle", root / "oracle", symlinks=True)
    workdir = root / "oracle" / "base" / "fizz" / "s1" / "workdir"
    (workdir / "leak.txt").symlink_to(secret)
    (workdir / "env").symlink_to("/proc/self/environ")
    (workdir / "tree").symlink_to(tmp_path)
    files = {f["path"]: f for f in final_files(workdir)}
    assert files["leak.txt"]["link"] == str(secret) and files["leak.txt"]["text"] is None
    assert files["env"]["link"] == "/proc/self/environ" and files["tree"]["link"] == str(tmp_path)
    rc, out = cli(["triage", "oracle", "--runs", str(root), "--task", "fizz"], capsys)
    assert rc == 0 and "leak.txt -> " in out
    assert "host-only-contents" not in out and "sk-linked-secret-123" not in out


def test_runs_lists_the_saved_runs_and_shows_one_as_its_records_have_it(runs, tmp_path, capsys):
    """`kbench runs`: every run of the folder with its model, plan and pass@1 (the report's own number);
    `runs show`: settings, status against the plan, outcomes, each attempt with what it changed and its
    verification output; a run missing an attempt is partial, and says how to resume it."""
    rc, out = cli(["runs", "--runs", str(runs)], capsys)
    lines = {ln.split()[0]: ln for ln in out.splitlines()[1:]}
    assert rc == 0 and set(lines) == {"oracle", "null", "liar", "chaos"}
    for run_id in ("oracle", "null"):
        p1 = stats.summarize(loaders.load_results(runs, run_id))["pass@1"]
        assert lines[run_id].endswith(stats.fmt_pct(p1)) and f"scripted-{run_id}" in lines[run_id]
        assert " 8/8 " in lines[run_id]  # four tasks, two seeds
    rc, out = cli(["runs", "--runs", str(runs), "--json"], capsys)
    assert {r["run_id"]: r["attempts"] for r in json.loads(out)}["oracle"] == 8

    rc, out = cli(["runs", "show", "oracle", "--runs", str(runs)], capsys)
    assert rc == 0 and "status: complete: 8 of 8 planned attempts recorded" in out and "outcomes: pass 8" in out
    rows = [ln for ln in out.splitlines() if ln.startswith("base ")]
    assert len(rows) == 8 and all(ln.split()[3] == "pass" and ln.endswith("tests.txt") for ln in rows)
    assert all(Path(ln.split()[-1]).is_file() for ln in rows)
    assert "changed: fizz.py (added)" in out  # the oracle wrote the reference's file

    copy = tmp_path / "runs"
    shutil.copytree(runs / "oracle", copy / "oracle")
    next((copy / "oracle").rglob("result.json")).unlink()
    rc, out = cli(["runs", "show", "oracle", "--runs", str(copy)], capsys)
    assert "status: partial: 7 of 8 planned attempts recorded (`kbench run oracle ...` again resumes it)" in out
    rc, out = cli(["runs", "--runs", str(tmp_path / "none")], capsys)
    assert rc == 0 and "no saved runs in" in out
