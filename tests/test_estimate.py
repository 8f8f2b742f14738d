"""kbench estimate, from stored attempts and no model calls: the same model's past attempts when there are some,
else the tier's medians, said per task. The estimate is the stored attempts' own wall times summed, and a run made
afterwards adds its attempts to the basis. How close an estimate comes to a later run's wall time depends on how
busy the machine is: that figure is measured in bench/estimate_accuracy.py, not asserted here."""

import time

import pytest

from kbench_dagster.cli import main
from kbench_dagster.commands.estimate import estimate
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.loader import select

TASKS = "clamp,countlines,fizz"


def run(srv, tmp_path, run_id: str, tasks: str = TASKS) -> float:
    t = time.monotonic()
    assert main(["run", run_id, "--model", srv.model_id, "--url", srv.url, "--agent", "builtin", "--tasks", tasks,
                 "--conds", "base",
                 "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                 "--db", str(tmp_path / "r.duckdb")]) == 0
    return time.monotonic() - t


def stored_walls(store: ResultsStore, run_id: str) -> dict[str, float]:
    _, rows = store.query("SELECT task, wall_s FROM attempts WHERE run_id = ?", [run_id])
    return dict(rows)


def test_an_estimate_from_past_attempts_then_the_run_itself(tmp_path, capsys):
    store = ResultsStore(tmp_path / "r.duckdb")
    tasks = select(load_suite("kbench"), TASKS)
    with ScriptedServer(persona="oracle", port=0, latency=0.2) as srv:
        run(srv, tmp_path, "before")
        capsys.readouterr()
        assert main(["estimate", "--model", srv.model_id, "--url", srv.url, "--tasks", TASKS + ",flatten",
                     "--db", str(tmp_path / "r.duckdb"), "--verbose"]) == 0
        said = capsys.readouterr().out
        assert "3 task(s) from past attempts" in said and "1 task(s) from easy tier medians" in said
        planned = estimate(store, srv.model_id, srv.url, tasks, ["base"], 1)
        assert set(f["basis"] for f in planned["tasks"].values()) == {"past attempts"}
        before = stored_walls(store, "before")
        assert planned["wall_one_worker"] == pytest.approx([sum(before.values())] * 3)
        # two seeds of the same plan cost twice as much
        twice = estimate(store, srv.model_id, srv.url, tasks, ["base"], 2)
        assert twice["wall_one_worker"] == pytest.approx([2 * sum(before.values())] * 3)
        run(srv, tmp_path, "after")
        again = estimate(store, srv.model_id, srv.url, tasks, ["base"], 1)
    after = stored_walls(store, "after")
    assert {t: f["n"] for t, f in again["tasks"].items()} == {t: 2 for t in before}
    # the median of two attempts is their mean
    assert again["wall_one_worker"][1] == pytest.approx(sum((before[t] + after[t]) / 2 for t in before))


def test_no_basis_is_said_not_guessed(tmp_path, capsys):
    assert main(["estimate", "--model", "m", "--url", "http://127.0.0.1:9/v1", "--tasks", "clamp",
                 "--db", str(tmp_path / "empty.duckdb")]) == 1
    assert "holds no attempts to go on" in capsys.readouterr().err
