"""A strike of the tool-use trials on the real local model: every answer graded or recorded as infra, the rows in
trial_results. make test-real strikes the first 4 of each of the five families (20, a few minutes on 2 cores, on
every landing); make test-slow the first 21 (105, about 17 minutes). The pass rates are a measurement
(bench/RESULTS.md), not an assertion."""

import json

import pytest
from test_local_model import model_or_skip

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.trials import ToolTrials, select_trials
from sandbox.servers import llama as lm


@pytest.mark.real_model
@pytest.mark.parametrize("per_family", [4, pytest.param(21, marks=pytest.mark.slow)])
def test_a_strike_of_every_family_on_the_real_model(per_family, tmp_path, capsys):
    with lm.LocalModelServer("0.5b", port=0, model_path=model_or_skip()) as server:
        assert main(["trials", "run", str(tmp_path / "t.json"), "--url", server.url, "--limit", str(per_family),
                     "--temperature", "0", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(tmp_path / "r.duckdb")]) == 0
    doc = json.loads((tmp_path / "t.json").read_text())
    n = len(select_trials(ToolTrials(), None, per_family))
    assert n >= 5 * per_family and sum(f["trials"] for f in doc["families"].values()) == n
    _, rows = ResultsStore(tmp_path / "r.duckdb").query(
        "SELECT outcome, count(*) FROM trial_results GROUP BY outcome ORDER BY outcome")
    assert sum(k for _, k in rows) == n and {o for o, _ in rows} <= {"pass", "wrong", "timeout", "infra"}
    with capsys.disabled():
        print("\n" + capsys.readouterr().out + json.dumps(doc["causes"]) + "\n" + str(rows))
