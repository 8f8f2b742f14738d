"""A stratified strike of the tool-use trials on the real 1.5B model: every answer graded or recorded as infra, the
rows in trial_results, every family in the strike. make test-real strikes a stratified 19 of each family (spread
over grades and over hand-written and generated trials: >= 200 trials, about 20 minutes on 2 cores, on every
landing). The pass rates are a measurement (bench/RESULTS.md), not an assertion."""

import json

import pytest

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.trials import ToolTrials, select_trials
from sandbox.servers import llama as lm
from sandbox.servers import model_pack as mp

PER_FAMILY = 19


def _model(pack: str):
    if not lm.xllamacpp_available():
        pytest.skip(f"xllamacpp is not installed (pip install {lm.XLLAMACPP_PIN})")
    try:
        return mp.ensure_model(pack)
    except mp.LocalModelError as e:
        pytest.skip(f"the {pack} model is not available: {e}")


@pytest.mark.real_model
def test_a_stratified_strike_of_every_family_on_the_real_model(tmp_path, capsys):
    kind = ToolTrials()
    units = select_trials(kind, None, None, PER_FAMILY)
    assert len(units) >= 200 and {u.family.id for u in units} == {f.id for f in kind.families}
    with lm.LocalModelServer("1.5b", port=0, model_path=_model("1.5b")) as server:
        assert main(["trials", "run", str(tmp_path / "t.json"), "--url", server.url, "--sample", str(PER_FAMILY),
                     "--temperature", "0", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(tmp_path / "r.duckdb")]) == 0
    doc = json.loads((tmp_path / "t.json").read_text())
    assert set(doc["families"]) == {f.id for f in kind.families}
    assert sum(f["trials"] for f in doc["families"].values()) == len(units)
    _, rows = ResultsStore(tmp_path / "r.duckdb").query(
        "SELECT outcome, count(*) FROM trial_results GROUP BY outcome ORDER BY outcome")
    assert sum(k for _, k in rows) == len(units) and {o for o, _ in rows} <= {"pass", "wrong", "timeout", "infra"}
    with capsys.disabled():
        print("\n" + capsys.readouterr().out + json.dumps(doc["causes"]) + "\n" + str(rows))
