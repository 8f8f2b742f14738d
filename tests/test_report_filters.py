"""`report` and `export` with --suite keep the runs of that suite only (given before the command or after it), a
suite no run is of is an error that names the suites there are, and a run of SWE-style local fixtures is never
offered as a SWE-bench score: its report warns that it is no SWE-bench Docker evaluation."""

import csv
import io
import json
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting import export, stats
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.importers.materialize import materialize
from task_defs.importers.swe import load_swe

CASES = Path(__file__).parent / "data" / "swe_cases.jsonl"
SWE_TASKS = {"calc__calc_1", "inventory__inventory_9", "slug__slug_4"}
PLAIN_TASKS = {"fizz", "clamp"}
WARNING = "not a SWE-bench Docker evaluation"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, str]:
    """One runs folder (and one store) holding a run of the bundled kbench suite and a run of the SWE-style cases;
    returns the folder's parent and the SWE suite's name as its run records it."""
    root = tmp_path_factory.mktemp("suites")
    common = ["--agent", "builtin", "--runs", str(root / "runs"), "--work", str(root / "work"),
              "--db", str(root / "r.duckdb")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KBENCH_FIXTURE_CACHE", str(root / "cache"))
        swe = load_suite(materialize(*load_swe(CASES, trusted=True)))
        with ScriptedServer(persona="oracle", port=0) as srv:
            assert main(["run", "plain", "--tasks", ",".join(sorted(PLAIN_TASKS)), "--url", srv.url,
                         "--model", srv.model_id, *common]) == 0
        with ScriptedServer(persona="oracle", suite=swe, port=0) as srv:
            assert main(["swe", "--dataset", str(CASES), "--trusted-dataset", "true", "run", "swe1",
                         "--url", srv.url, "--model", srv.model_id, *common]) == 0
    return root, swe.name


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_the_runs_record_their_suites(made):
    root, swe = made
    assert swe.startswith("swe-swe_cases-")  # the importer's mark leads the name
    names = {rid: json.loads((root / "runs" / rid / "manifest.json").read_text())["suite"]["name"]
             for rid in ("plain", "swe1")}
    assert names == {"plain": "kbench", "swe1": swe}


def test_report_with_a_suite_shows_only_that_suites_runs(made, capsys):
    root, swe = made
    runs = ["--runs", str(root / "runs")]
    rc, out, _ = cli(["report", "--suite", "kbench", *runs], capsys)
    assert rc == 0 and "run plain:" in out and "run swe1" not in out
    assert not SWE_TASKS & set(out.split())
    rc, out, _ = cli(["--suite", swe, "report", *runs], capsys)  # the global option means the same
    assert rc == 0 and "run swe1:" in out and "run plain" not in out
    assert SWE_TASKS <= set(out.split()) and not PLAIN_TASKS & set(out.split())
    rc, out, _ = cli(["report", "plain", *runs], capsys)  # no --suite: the default suite filters nothing
    assert rc == 0 and "run plain:" in out
    rc, out, _ = cli(["report", "swe1", *runs], capsys)
    assert rc == 0 and "run swe1:" in out
    rc, out, err = cli(["report", "swe1", "--suite", "kbench", *runs], capsys)  # a run of another suite
    assert rc == 2 and out == "" and "no run of suite 'kbench' among swe1" in err and swe in err


def test_export_with_a_suite_keeps_exactly_that_suites_rows(made, capsys):
    root, swe = made
    runs, db = ["--runs", str(root / "runs")], ["--db", str(root / "r.duckdb")]
    rc, out, _ = cli(["export", "plain", "swe1", "--suite", "kbench", "--format", "csv", *runs], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and {(r["run_id"], r["task"]) for r in rows} == {("plain", t) for t in PLAIN_TASKS}
    rc, out, _ = cli(["--suite", swe, "export", "--format", "json", *db, *runs], capsys)  # from the store
    rows = json.loads(out)
    assert rc == 0 and {(r["run_id"], r["task"]) for r in rows} == {("swe1", t) for t in SWE_TASKS}
    rc, out, _ = cli(["export", "--suite", "kbench", "--format", "json", *db, *runs], capsys)
    assert rc == 0 and {r["run_id"] for r in json.loads(out)} == {"plain"}
    rc, out, _ = cli(["export", "--format", "json", *db, *runs], capsys)  # no --suite: every run
    assert rc == 0 and {r["run_id"] for r in json.loads(out)} == {"plain", "swe1"}


@pytest.mark.parametrize("command", [["report"], ["export", "plain", "swe1"], ["export"]])
def test_a_suite_no_run_is_of_is_an_error_naming_the_suites_there_are(made, capsys, command):
    root, swe = made
    argv = [*command, "--suite", "nope", "--runs", str(root / "runs")]
    if command == ["export"]:
        argv += ["--db", str(root / "r.duckdb")]
    rc, out, err = cli(argv, capsys)
    assert rc == 2 and out == ""
    assert "no run of suite 'nope'" in err and "kbench" in err and swe in err


def test_a_suite_with_runs_but_no_stored_attempt_is_an_error_not_an_empty_export(made, tmp_path, capsys):
    root, _ = made
    empty = tmp_path / "empty.duckdb"
    with ResultsStore(empty).connect():  # made with its tables, and no row
        pass
    rc, out, err = cli(["export", "--suite", "kbench", "--db", str(empty), "--runs", str(root / "runs")], capsys)
    assert rc == 2 and out == "" and "no finished attempt of suite 'kbench'" in err


def test_report_without_a_run_or_a_suite_says_what_it_takes(made, capsys):
    root, _ = made
    rc, out, err = cli(["report", "--runs", str(root / "runs")], capsys)
    assert rc == 2 and "takes a RUNID, or --suite NAME" in err


def test_a_swe_fixture_run_warns_that_it_is_not_a_swe_bench_score_and_a_plain_run_does_not(made, capsys):
    root, swe = made
    runs = ["--runs", str(root / "runs")]
    rc, out, _ = cli(["report", "swe1", *runs], capsys)
    assert rc == 0 and WARNING in out and "not comparable with published SWE-bench scores" in out
    rc, out, _ = cli(["report", "plain", *runs], capsys)
    assert rc == 0 and WARNING not in out and "not ready to publish" in out  # other warnings still shown
    rc, out, _ = cli(["collect", "swe1", "plain", *runs], capsys)  # the warning's code is one the schema knows
    doc = json.loads(out)
    export.validate_results(doc)
    codes = {run["run_id"]: {w["code"] for w in run["warnings"]} for run in doc["runs"]}
    assert "swe_fixtures" in codes["swe1"] and "swe_fixtures" not in codes["plain"]


def test_the_warning_reads_the_suite_from_a_row_or_from_a_manifest():
    row = {"task": "t", "outcome": "pass", "seed": 1, "model": "m", "agent": "a", "condition": "base"}
    codes = lambda rows, manifests=None: {w["code"] for w in stats.publishability(rows, manifests)}  # noqa: E731
    assert "swe_fixtures" in codes([dict(row, kind="swe-cases-0123")])
    assert "swe_fixtures" in codes([row], [{"run_id": "r", "suite": {"name": "swe-cases-0123"}}])
    assert "swe_fixtures" not in codes([dict(row, kind="kbench")], [{"run_id": "r", "suite": {"name": "kbench"}}])


def test_every_warning_code_is_one_the_results_schema_allows():
    """`kbench collect` validates its file against schema/results.schema.json: a warning code publishability can
    give that the schema does not list would fail every collect of such a run."""
    import re

    from kbench_dagster.reporting import stats

    source = Path(stats.__file__).read_text()
    codes = set(re.findall(r'"code": "([a-z_]+)"', source))
    schema = json.loads((Path(__file__).parent.parent / "schema" / "results.schema.json").read_text())

    def enums_of_code(node) -> list[list[str]]:  # wherever the schema declares a field `code`
        if isinstance(node, list):
            return [e for n in node for e in enums_of_code(n)]
        if not isinstance(node, dict):
            return []
        own = [node["code"]["enum"]] if isinstance(node.get("code"), dict) and "enum" in node["code"] else []
        return own + [e for n in node.values() for e in enums_of_code(n)]

    [allowed] = enums_of_code(schema)
    assert codes and codes <= set(allowed), codes - set(allowed)
