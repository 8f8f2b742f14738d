"""kbench estimate, from stored attempts and no model calls: the same model's past attempts when there are some,
else the tier's medians, said per task; the estimate for a run made afterwards comes within 30% of its measured
wall time (both runs here, beside each other, on a scripted server whose latency dominates the attempt)."""

import time

from kbench_dagster.cli import main
from kbench_dagster.estimate_cmd import estimate
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


def test_an_estimate_from_past_attempts_then_the_run_itself(tmp_path, capsys):
    store = ResultsStore(tmp_path / "r.duckdb")
    with ScriptedServer(persona="oracle", port=0, latency=0.6) as srv:
        run(srv, tmp_path, "before")
        capsys.readouterr()
        assert main(["estimate", "--model", srv.model_id, "--url", srv.url, "--tasks", TASKS + ",flatten",
                     "--db", str(tmp_path / "r.duckdb"), "--verbose"]) == 0
        said = capsys.readouterr().out
        assert "3 task(s) from past attempts" in said and "1 task(s) from easy tier medians" in said
        planned = estimate(store, srv.model_id, srv.url, select(load_suite("kbench"), TASKS), ["base"], 1)
        assert set(f["basis"] for f in planned["tasks"].values()) == {"past attempts"}
        measured = run(srv, tmp_path, "after")
    guess = planned["wall_one_worker"][1]
    assert abs(guess - measured) <= 0.3 * measured, (guess, measured)


def test_no_basis_is_said_not_guessed(tmp_path, capsys):
    assert main(["estimate", "--model", "m", "--url", "http://127.0.0.1:9/v1", "--tasks", "clamp",
                 "--db", str(tmp_path / "empty.duckdb")]) == 1
    assert "holds no attempts to go on" in capsys.readouterr().err
