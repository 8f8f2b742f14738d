"""`kbench import`: a second machine's results land in this store with their own endpoint and hardware; an invalid
file is refused with the field named and nothing written; a second import changes nothing."""

import json

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_data import aggregates
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

TABLES = ("attempts", "gradings", "requests", "manifests")


def snapshot(db) -> dict:
    store = ResultsStore(db)
    return {t: sorted(map(repr, store.query(f"SELECT * FROM {t}")[1])) for t in TABLES}


@pytest.fixture(scope="module")
def two_machines(tmp_path_factory):
    """Machine A ran on its CPU box; machine B on a declared GPU at its lab, and collected its run to a file."""
    tmp = tmp_path_factory.mktemp("machines")
    with ScriptedServer("oracle", port=0) as srv:
        for machine, cls, site in (("a", "cpu", "lab-a"), ("b", "high-gpu", "lab-b")):
            db = tmp / f"{machine}.duckdb"
            assert main(["endpoints", "add", f"box-{machine}", srv.url, "--hardware-class", cls, "--hardware",
                         f"machine {machine}", "--site", site, "--db", str(db)]) == 0
            assert main(["run", "nightly", "--model", srv.model_id, "--endpoint", f"box-{machine}", "--agent",
                         "builtin", "--conds", "base", "--tasks", "fizz,clamp", "--seeds", "2", "--runs",
                         str(tmp / f"runs-{machine}"), "--work", str(tmp / "work"), "--db", str(db)]) == 0
    return tmp


def collect_b(tmp, capsys) -> dict:
    capsys.readouterr()
    assert main(["collect", "nightly", "--runs", str(tmp / "runs-b")]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_collect_file_lands_with_its_hardware_and_a_second_import_is_a_no_op(two_machines, capsys):
    tmp = two_machines
    doc = collect_b(tmp, capsys)
    path = tmp / "b.json"
    path.write_text(json.dumps(doc))
    db = tmp / "a.duckdb"
    assert main(["import", str(path), "--db", str(db)]) == 0
    assert "as site lab-b: 1 run(s) (lab-b:nightly)" in capsys.readouterr().out  # the endpoint's declared site
    once = snapshot(db)
    assert main(["import", str(path), "--db", str(db)]) == 0
    assert snapshot(db) == once
    groups = {(g["server"], g["hardware_class"], g["hardware"]): g["summary"]["runs"]
              for g in aggregates(ResultsStore(db), n_boot=200)["groups"]}
    # both machines' rows, each with its own endpoint and hardware, neither mixed into the other
    assert groups == {("box-a", "cpu", "machine a"): 4, ("box-b", "high-gpu", "machine b"): 4}
    _, runs = ResultsStore(db).query("SELECT DISTINCT run_id FROM attempts ORDER BY run_id")
    assert runs == [("lab-b:nightly",), ("nightly",)]
    _, speed = ResultsStore(db).query("SELECT count(*) FROM requests WHERE run_id = 'lab-b:nightly'")
    assert speed[0][0] > 0  # the other machine's per-request timings came along


def test_an_invalid_file_is_refused_with_the_field_named_and_nothing_written(two_machines, capsys):
    tmp = two_machines
    doc = collect_b(tmp, capsys)
    db = tmp / "invalid.duckdb"
    before = snapshot(db)
    doc["runs"][0]["rows"]["attempts"][1]["outcome"] = "great"
    bad = tmp / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["import", str(bad), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "runs/0/rows/attempts/1/outcome" in err
    del doc["runs"][0]["rows"]
    bad.write_text(json.dumps(doc))
    assert main(["import", str(bad), "--db", str(db)]) == 2
    assert "runs/0/rows: missing" in capsys.readouterr().err
    doc = collect_b(tmp, capsys)
    # valid by the schema, but the second cell's row cannot be stored: the first cell, already written, goes too
    attempts = doc["runs"][0]["rows"]["attempts"]
    next(r for r in attempts if r["seed"] == 2)["started_at"] = "not a time"
    bad.write_text(json.dumps(doc))
    assert main(["import", str(bad), "--db", str(db)]) == 2
    assert "a row could not be stored" in capsys.readouterr().err
    bad.write_text("{not json")
    assert main(["import", str(bad), "--db", str(db)]) == 2
    assert "not a JSON file" in capsys.readouterr().err
    assert snapshot(db) == before


def test_run_folders_import_too(two_machines, capsys):
    tmp = two_machines
    db = tmp / "folders.duckdb"
    assert main(["import", str(tmp / "runs-b"), "--site", "from-disk", "--db", str(db)]) == 0
    assert "from-disk:nightly" in capsys.readouterr().out
    _, rows = ResultsStore(db).query("SELECT DISTINCT hardware_class, endpoint FROM attempts")
    assert rows == [("high-gpu", "box-b")]
    assert main(["import", str(tmp / "nowhere"), "--db", str(db)]) == 2
    assert "no such file or folder" in capsys.readouterr().err
