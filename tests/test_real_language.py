"""The text jobs and the breakdown against the real local model (make test-slow): a --limit 3 slice of both runs
end to end through the chat API and the agent, every reply is scored or recorded as infra, and the figures land
in OUT.json and DuckDB. What the model scores is a measurement (bench/RESULTS.md), not an assertion."""

import json

import pytest
from test_local_model import model_or_skip

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.servers import llama as lm


@pytest.fixture(scope="module")
def model_server():
    s = lm.LocalModelServer("0.5b", port=0, model_path=model_or_skip())
    s.start()
    yield s
    s.stop()


# about 10 minutes on two cores: make test-slow (make test-real, in CI, keeps to the agent loop, the
# trials and the server; the scripted server drives this path in make test)
@pytest.mark.slow
@pytest.mark.real_model
def test_a_slice_of_the_text_jobs_and_the_breakdown_on_the_real_model(model_server, tmp_path, capsys):
    common = ["--url", model_server.url, "--model", model_server.model_id, "--limit", "3", "--runs",
              str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(tmp_path / "r.duckdb")]
    assert main(["textjobs", str(tmp_path / "t.json"), *common, "--timeout", "120"]) == 0
    assert main(["breakdown", str(tmp_path / "b.json"), *common, "--agent", "builtin", "--timeout", "150"]) == 0
    print(capsys.readouterr().out)  # the two tables: the figures for bench/RESULTS.md
    text = json.loads((tmp_path / "t.json").read_text())
    assert len(text["jobs"]) == 5 and all(f["items"] == 3 for f in text["jobs"].values())
    assert all(i["outcome"] in ("pass", "wrong", "timeout", "infra") for i in text["items"])
    store = ResultsStore(tmp_path / "r.duckdb")
    assert store.query("SELECT count(*) FROM textjob_replies")[1] == [(15,)]
    # every way of every job answered 3 items (right or not): 5 jobs x 3 ways x 3 items
    assert store.query("SELECT count(*) FROM breakdown_answers")[1] == [(45,)]
    doc = json.loads((tmp_path / "b.json").read_text())
    assert set(doc["jobs"]) == {"dates", "dedupe", "invoices", "ranking", "units"}
