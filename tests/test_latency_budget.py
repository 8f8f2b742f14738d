"""A correct but slow model: its pass stays a pass in pass@1, but over the latency budget it is not usable and does
not count as completed (klbench's usability), in the report's numbers and in the board's SQL alike."""

from kbench_dagster.cli import main
from kbench_dagster.reporting import board_data, stats
from kbench_dagster.reporting.loaders import load_results
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer


def _run(srv, tmp_path, run_id, budget):
    assert main(["run", run_id, "--model", srv.model_id, "--url", srv.url, "--agent", "builtin", "--tasks",
                 "fizz,clamp", "--conds", "base", "--latency-budget", budget, "--runs", str(tmp_path / "runs"),
                 "--work", str(tmp_path / "work"), "--db", str(tmp_path / "k.duckdb")]) == 0
    return load_results(tmp_path / "runs", run_id)


def test_a_pass_over_the_budget_is_a_pass_but_not_usable(tmp_path):
    # every reply takes 0.3 s, so an attempt (a write, then a final message) takes 0.6 s or more, never less
    with ScriptedServer(persona="oracle", port=0, latency=0.3) as srv:
        slow = _run(srv, tmp_path, "slow", "0.2")
        roomy = _run(srv, tmp_path, "roomy", "1000")
    assert [(r["outcome"], r["over_budget"], r["latency_budget_s"]) for r in slow] == [("pass", True, 0.2)] * 2
    assert [(r["outcome"], r["over_budget"]) for r in roomy] == [("pass", False)] * 2
    s = stats.summarize(slow)
    assert (s["pass@1"], s["usability"], s["completion"]) == (1.0, 0.0, 0.0)
    assert stats.summarize(roomy)["usability"] == 1.0
    # the board's numbers come from SQL over the store: one group (same model, agent, condition and server) holding
    # both runs, so each task has one usable pass of two
    agg = board_data.aggregates(ResultsStore(tmp_path / "k.duckdb"), n_boot=50)
    (group,) = agg["groups"]
    s = group["summary"]
    assert (s["pass@1"], s["usability"], s["completion"]) == (1.0, 0.5, 0.5)
    records = stats.summarize(slow + roomy, n_boot=50)  # the report's path, from the records
    assert (records["usability"], records["completion"]) == (s["usability"], s["completion"])
