"""The results tree (klbench's results/<site>/<hardware>/*.json): `kbench collect --into` lays runs out by the
site and hardware their endpoint declared, `kbench collect --check` holds every file to the schema and its place
(a bad file named with its field, the others still checked), the board is built from the tree with each file's
rows under its site, and the repository's own results/ tree passes the check."""

import json
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_data import aggregates
from kbench_dagster.reporting.results_tree import check_tree
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Two sites' runs, each collected into one tree."""
    tmp = tmp_path_factory.mktemp("tree")
    with ScriptedServer("oracle", port=0) as srv:
        for machine, cls, hardware, site in (("a", "cpu", "Ryzen 7 box", "lab a"), ("b", "high-gpu", "H100 80GB",
                                                                                    "lab-b")):
            db = tmp / f"{machine}.duckdb"
            assert main(["endpoints", "add", f"box-{machine}", srv.url, "--hardware-class", cls, "--hardware",
                         hardware, "--site", site, "--db", str(db)]) == 0
            assert main(["run", f"nightly-{machine}", "--model", srv.model_id, "--endpoint", f"box-{machine}",
                         "--agent", "builtin", "--conds", "base", "--tasks", "fizz,clamp", "--seeds", "2", "--runs",
                         str(tmp / "runs"), "--work", str(tmp / "work"), "--db", str(db)]) == 0
    assert main(["collect", "nightly-a", "nightly-b", "--runs", str(tmp / "runs"), "--into", str(tmp / "results")]) == 0
    return tmp


def test_collect_into_lays_runs_out_by_site_and_hardware_and_the_check_passes(tree, capsys):
    files = sorted(str(p.relative_to(tree / "results")) for p in (tree / "results").rglob("*.json"))
    assert files == ["lab-a/Ryzen-7-box/nightly-a.json", "lab-b/H100-80GB/nightly-b.json"]
    for f in files:
        doc = json.loads((tree / "results" / f).read_text())
        assert [r["run_id"] for r in doc["runs"]] == [Path(f).stem]
    capsys.readouterr()
    assert main(["collect", "--check", str(tree / "results")]) == 0
    assert "2 results files, 0 with problems" in capsys.readouterr().out


def test_a_bad_file_is_named_with_its_field_and_the_others_still_checked(tree, tmp_path, capsys):
    import shutil

    root = tmp_path / "results"
    shutil.copytree(tree / "results", root)
    a = root / "lab-a" / "Ryzen-7-box" / "nightly-a.json"
    doc = json.loads(a.read_text())
    doc["runs"][0]["conditions"][0]["pass_at_1"] = "most"
    a.write_text(json.dumps(doc))
    moved = root / "lab-c" / "gpu" / "nightly-b.json"  # a sound file in a place its run does not declare
    moved.parent.mkdir(parents=True)
    shutil.copy(root / "lab-b" / "H100-80GB" / "nightly-b.json", moved)
    (root / "stray.json").write_text("{}")
    files, problems = check_tree(root)
    assert files == 4 and len(problems) == 3
    assert any("nightly-a.json" in p and "pass_at_1" in p for p in problems)
    assert any("lab-c/gpu/nightly-b.json" in p and "belongs under lab-b/H100-80GB/" in p for p in problems)
    assert any("stray.json" in p and "<site>/<hardware>/<run>.json" in p for p in problems)
    capsys.readouterr()
    assert main(["collect", "--check", str(root)]) == 1
    said = capsys.readouterr()
    assert "4 results files, 3 with problems" in said.out and said.err.count("error: ") == 3

    # the board from this tree: the sound file lands under its site, the bad ones are refused by name
    db = tmp_path / "board.duckdb"
    assert main(["board", "--results", str(root), "--db", str(db), "--out", str(tmp_path / "site")]) == 0
    said = capsys.readouterr()
    assert "1 results files imported" in said.out and "3 refused" in said.out
    _, runs = ResultsStore(db).query("SELECT DISTINCT run_id FROM attempts ORDER BY run_id")
    assert runs == [("lab-b:nightly-b",)]


def test_the_board_is_built_from_the_tree_with_each_sites_rows_apart(tree, tmp_path):
    db = tmp_path / "board.duckdb"
    assert main(["board", "--results", str(tree / "results"), "--db", str(db), "--out", str(tmp_path / "site")]) == 0
    store = ResultsStore(db)
    _, runs = store.query("SELECT DISTINCT run_id FROM attempts ORDER BY run_id")
    assert runs == [("lab-a:nightly-a",), ("lab-b:nightly-b",)]
    groups = {(g["server"], g["hardware"]): g["summary"]["runs"] for g in aggregates(store, n_boot=200)["groups"]}
    assert groups == {("box-a", "Ryzen 7 box"): 4, ("box-b", "H100 80GB"): 4}
    assert "box-a" in (tmp_path / "site" / "index.html").read_text()


def test_the_repositorys_own_results_tree_passes_the_check():
    """What lands in results/ is held to the schema and its place on every make test."""
    files, problems = check_tree(REPO / "results")
    assert problems == [], problems
    assert (REPO / "results" / "README.md").is_file()
