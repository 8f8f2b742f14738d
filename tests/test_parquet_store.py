"""The two results stores behind one interface: the single DuckDB file and the Parquet folder many writers share
give the same rows for the same work (a scripted run through the CLI, partial replaces, the registry); eight
writer processes on different partitions lose and duplicate nothing; a write that fails leaves the partition as
it was; a reader sees whole partitions only."""

import multiprocessing
import subprocess
import sys

import duckdb
import pytest

from kbench_dagster.cli import main
from kbench_dagster.parquet_store import ParquetStore, open_store
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

ROWS = "SELECT partition_key, run_id, task, seed, outcome FROM attempts ORDER BY ALL"


def both(tmp_path):
    return [open_store(tmp_path / "one.duckdb"), open_store(tmp_path / "shared")]


def attempt(run_id, task, seed=1, outcome="pass"):
    return {"run_id": run_id, "model": "m", "agent": "builtin", "condition": "base", "task": task, "seed": seed,
            "outcome": outcome}


def test_the_path_picks_the_store(tmp_path):
    assert type(open_store(tmp_path / "kbench.duckdb")) is ResultsStore
    assert type(open_store(tmp_path / "folder")) is ParquetStore
    assert type(open_store(str(tmp_path / "x.d") + "/")) is ParquetStore


def test_the_same_writes_give_the_same_rows(tmp_path):
    results = []
    for store in both(tmp_path):
        store.replace_partition("a", {"attempts": [attempt("r1", "t1"), attempt("r1", "t2", outcome="wrong")],
                                      "gradings": [attempt("r1", "t1")]})
        store.replace_partition("b", {"attempts": [attempt("r2", "t1")]})
        store.replace_partition("a", {"gradings": [attempt("r1", "t1", outcome="wrong")]})  # attempts stay
        store.replace_partition("b", {"attempts": []})  # a rerun that left nothing: the partition empties
        assert store.remember_model("m@e", "m", "e") and not store.remember_model("m@e", "m", "e")
        store.remember_model("n@e", "n", "e")
        assert store.forget_model("n@e")
        results.append((store.query(ROWS)[1], store.query("SELECT task, outcome FROM gradings")[1],
                        store.models(), store.query("SELECT count(*) FROM scored")[1]))
    one, shared = results
    assert one[:2] == shared[:2] and [m["model_key"] for m in one[2]] == [m["model_key"] for m in shared[2]]
    assert one[0] == [("a", "r1", "t1", 1, "pass"), ("a", "r1", "t2", 1, "wrong")] and one[3] == shared[3]


def test_writes_inside_opened_ahead_land_and_the_file_is_free_after(tmp_path):
    for store in both(tmp_path):
        with store.opened_ahead():
            store.replace_partition("a", {"attempts": [attempt("r1", "t1")]})
            store.replace_partition("a", {"attempts": [attempt("r1", "t2")]})  # delete-then-insert as ever
        # a read-only connection (which DuckDB refuses beside an open read-write one) and another process both
        # open the store again once the block is over
        assert store.query(ROWS)[1] == [("a", "r1", "t2", 1, "pass")]
        if isinstance(store, ResultsStore) and not isinstance(store, ParquetStore):
            code = ("import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                    "print(c.execute('SELECT count(*) FROM attempts').fetchone()[0])")
            out = subprocess.run([sys.executable, "-c", code, str(store.path)], capture_output=True, text=True)
            assert out.stdout.strip() == "1", out.stderr


def test_a_scripted_run_stores_the_same_rows_in_both(tmp_path):
    got = []
    for db in (tmp_path / "one.duckdb", tmp_path / "shared"):
        with ScriptedServer("oracle", suite="smoke", port=0) as srv:
            assert main(["--suite", "smoke", "run", "same", "--model", srv.model_id, "--url", srv.url, "--agent",
                         "builtin", "--runs", str(tmp_path / f"runs-{db.name}"), "--work", str(tmp_path / "work"),
                         "--db", str(db)]) == 0
        store = open_store(db)
        got.append([r[1:] for r in store.query(ROWS)[1]])
        assert store.query("SELECT count(*) FROM manifests")[1] == [(1,)]
    assert got[0] == got[1] and len(got[0]) == 9 and {r[3] for r in got[0]} == {"pass"}


def test_a_write_that_fails_leaves_the_partition_as_it_was(tmp_path):
    store = open_store(tmp_path / "shared")
    store.replace_partition("a", {"attempts": [attempt("r1", "t1")]})
    with pytest.raises(duckdb.ConversionException):
        store.replace_partitions({"a": {"attempts": [attempt("r1", "t9")]},
                                  "b": {"attempts": [{**attempt("r2", "t1"), "seed": "not a number"}]}})
    assert store.query(ROWS)[1] == [("a", "r1", "t1", 1, "pass")]


def _writer(root: str, n: int, partitions: int, rows: int) -> None:
    store = ParquetStore(root)
    for p in range(partitions):
        store.replace_partition(f"w{n}/p{p}", {"attempts": [attempt(f"w{n}", f"t{i}") for i in range(rows)]})


def test_eight_writers_at_once_lose_and_duplicate_nothing(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path / "shared"), n, 3, 40)) for n in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 8
    store = open_store(tmp_path / "shared")
    _, rows = store.query("SELECT partition_key, count(*), count(DISTINCT task) FROM attempts GROUP BY ALL")
    assert len(rows) == 24 and all(n == 40 and d == 40 for _k, n, d in rows)
