"""A results file from elsewhere is untrusted (rule 7 of sandbox/judge): its rows hold only the store's fields, every
number finite and bounded, no host path; a bad file is named and refused while a good one beside it lands; and the
board shows records only from below its own runs root, through no link, whatever path the store holds."""

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.engine.agent_rows import ATTEMPT_COLUMNS, GRADING_COLUMNS
from sandbox.servers.scripted import ScriptedServer

SECRET = "host-secret-7d1f0c"  # what no board page may ever show


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    """One run of fizz on a scripted server, its records under runs/, its rows in local.duckdb, and the run
    collected to a results file (as another machine would send it)."""
    tmp = tmp_path_factory.mktemp("hostile-import")
    with ScriptedServer("oracle", port=0) as srv:
        assert main(["run", "nightly", "--model", srv.model_id, "--url", srv.url, "--agent", "builtin", "--conds",
                     "base", "--tasks", "fizz", "--seeds", "1", "--runs", str(tmp / "runs"), "--work",
                     str(tmp / "work"), "--db", str(tmp / "local.duckdb")]) == 0
    return tmp


def collected(tmp: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["collect", "nightly", "--runs", str(tmp / "runs")]) == 0
    return json.loads(capsys.readouterr().out)


def planted(tmp: Path) -> Path:
    """A folder outside every runs root shaped like a record: its tests.txt, final file and a link all carry the
    secret, as does a file a link points at."""
    secret = tmp / "secret.txt"
    secret.write_text(f"{SECRET} in a file outside the runs root\n")
    folder = tmp / "elsewhere" / "record"
    (folder / "workdir").mkdir(parents=True, exist_ok=True)
    (folder / "result.json").write_text(json.dumps({"outcome": "pass", "detail": SECRET}))
    (folder / "tests.txt").write_text(f"{SECRET} as test output\n")
    (folder / "workdir" / "notes.txt").write_text(f"{SECRET} as a final file\n")
    if not (folder / "workdir" / "leak").is_symlink():
        (folder / "workdir" / "leak").symlink_to(secret)
    return folder


def board_text(site: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())


def build(db: Path, site: Path, runs: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["board", "--db", str(db), "--out", str(site), "--runs", str(runs)]) == 0
    return board_text(site)


def test_a_record_path_in_a_file_is_refused_and_never_read(machine, capsys):
    tmp = machine
    doc = collected(tmp, capsys)
    doc["runs"][0]["rows"]["attempts"][0]["record_path"] = str(planted(tmp))
    bad = tmp / "with-path.json"
    bad.write_text(json.dumps(doc))
    db = tmp / "path.duckdb"
    assert main(["import", str(bad), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "with-path.json" in err and "runs/0/rows/attempts/0/record_path" in err and "host path" in err
    _, rows = ResultsStore(db).query("SELECT count(*) FROM attempts")
    assert rows == [(0,)]


def test_a_stored_host_path_and_links_in_the_runs_root_never_reach_a_page(machine, tmp_path, capsys):
    """A store that holds a record_path to a host folder (an import made before the rule), and records in the runs
    root whose files are links out: no page shows what any of them point at; the real record still has its page."""
    runs = tmp_path / "runs"
    shutil.copytree(machine / "runs" / "nightly", runs / "nightly", symlinks=True)
    elsewhere = planted(tmp_path)
    record = runs / "nightly" / "base" / "fizz" / "s1"
    (record / "tests.txt").unlink()
    (record / "tests.txt").symlink_to(tmp_path / "secret.txt")
    (record / "workdir" / "leak").symlink_to(tmp_path / "secret.txt")
    db = tmp_path / "kbench.duckdb"
    shutil.copy(machine / "local.duckdb", db)
    store = ResultsStore(db)
    with store.connect() as con:
        row = con.execute("SELECT * FROM attempts LIMIT 1").fetchone()
        cols = [d[0] for d in con.description]
    row = dict(zip(cols, row))
    # the same attempt again under a run whose record is a link out of the runs root, and one pointing elsewhere
    (runs / "linked" / "base" / "fizz").mkdir(parents=True)
    (runs / "linked" / "base" / "fizz" / "s1").symlink_to(elsewhere)
    extra = [{**row, "partition_key": None, "run_id": "linked", "record_path": str(elsewhere)},
             {**row, "partition_key": None, "run_id": "lab-b:far", "record_path": str(elsewhere)}]
    store.replace_partition("hostile/base", {"attempts": extra})
    text = build(db, tmp_path / "site", runs, capsys)
    assert SECRET not in text
    html = next((tmp_path / "site" / "run").glob("nightly-*/*/*/s1.html")).read_text()
    linked = next((tmp_path / "site" / "run").glob("linked-*/*/*/s1.html")).read_text()
    assert "The record is not shown" in linked and "linked/base/fizz/s1 &rarr;" in linked
    assert "def fizzbuzz" in html  # the real record's own final file is shown
    assert "(not shown:" in html and "(a link; not followed)" in html  # the links are named, not followed


def test_unknown_fields_are_refused_with_file_row_and_field_named(machine, capsys):
    tmp = machine
    for table, row in (("attempts", 0), ("gradings", 0), ("requests", 1)):
        doc = collected(tmp, capsys)
        doc["runs"][0]["rows"][table][row]["colour"] = "red"
        bad = tmp / f"unknown-{table}.json"
        bad.write_text(json.dumps(doc))
        assert main(["import", str(bad), "--db", str(tmp / "unknown.duckdb")]) == 2
        err = capsys.readouterr().err
        assert f"unknown-{table}.json" in err and f"runs/0/rows/{table}/{row}/colour" in err
        assert "not a field" in err


@pytest.mark.parametrize("value", [1e308, math.nan, math.inf, -1.0, 1e400])
def test_out_of_range_numbers_are_refused_and_a_good_file_beside_still_lands(machine, tmp_path, capsys, value):
    doc = collected(machine, capsys)
    doc["runs"][0]["rows"]["attempts"][0]["duration_s"] = value
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc).replace("Infinity", "1e400") if value == 1e400 else json.dumps(doc))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(collected(machine, capsys)))
    db = tmp_path / "kbench.duckdb"
    assert main(["import", str(bad), str(good), "--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert "bad.json" in err and "runs/0/rows/attempts/0/duration_s" in err and "1 of 2 refused" in err
    assert f"imported from {good}" in out
    _, rows = ResultsStore(db).query("SELECT count(*), max(duration_s) FROM attempts")
    assert rows[0][0] == 1 and rows[0][1] < 1e6
    assert "Leaderboard" in build(db, tmp_path / "site", machine / "runs", capsys)


def test_a_time_already_stored_out_of_range_does_not_stop_the_board(machine, tmp_path, capsys):
    """Rows stored before the bounds (an older import) keep their place, and the board still builds."""
    db = tmp_path / "kbench.duckdb"
    shutil.copy(machine / "local.duckdb", db)
    with ResultsStore(db).connect() as con:
        con.execute("UPDATE attempts SET duration_s = 1e308")
    text = build(db, tmp_path / "site", machine / "runs", capsys)
    assert re.search(r"scripted-oracle", text)


def test_a_folder_import_brings_no_host_path(machine, capsys):
    db = machine / "folder.duckdb"
    assert main(["import", str(machine / "runs"), "--site", "disk", "--db", str(db)]) == 0
    _, rows = ResultsStore(db).query("SELECT count(*), count(record_path) FROM attempts")
    assert rows == [(1, 0)]


def test_the_schema_rows_are_the_store_columns():
    """The schema names every column an imported row may carry, and no other: a new store column needs a rule."""
    schema = json.loads((Path(__file__).resolve().parents[1] / "schema" / "results.schema.json").read_text())
    local = {"partition_key", "record_path"}
    assert set(schema["$defs"]["attempt_row"]["properties"]) == set(ATTEMPT_COLUMNS) - local
    assert set(schema["$defs"]["grading_row"]["properties"]) == set(GRADING_COLUMNS) - local
    assert schema["$defs"]["attempt_row"]["additionalProperties"] is False
