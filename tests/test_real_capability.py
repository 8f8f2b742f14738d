"""A slice of the capability suite on the real local model (make test-slow): the first item of each chat category
(one run each: on two CPU cores three would take most of an hour) through `kbench capability run`, and the first
task of each agent category with the builtin agent, rows in the store and klbench's figures printed. The scores
are a measurement (bench/RESULTS.md), not an assertion; the test asserts that every item was answered and graded
or set apart."""

import json
import time

import pytest
from test_local_model import model_or_skip

from kbench_dagster.cli import main
from kbench_dagster.commands.capability import print_scores, score_document
from kbench_dagster.parquet_store import open_store
from sandbox.chatwork.capability import CapabilityItems
from sandbox.servers import llama as lm
from task_defs.capability.loader import load_categories
from task_defs.capability.models import AGENT


# about 10 minutes on two cores: make test-slow (make test-real, in CI, keeps to the agent loop, the
# trials and the server; the scripted server drives this path in make test)
@pytest.mark.slow
@pytest.mark.real_model
def test_one_item_of_every_category_on_the_real_model(tmp_path, capsys):
    db = tmp_path / "r.duckdb"
    chat = CapabilityItems().select(limit=1)
    agent_tasks = [doc.tasks[0].task_id for doc, _ in load_categories() if doc.category in AGENT]
    t = time.monotonic()
    with lm.LocalModelServer("0.5b", port=0, model_path=model_or_skip()) as server:
        assert main(["capability", "run", str(tmp_path / "c.json"), "--url", server.url, "--limit", "1", "--seeds",
                     "1", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(db)]) == 0
        chat_s = time.monotonic() - t
        assert main(["--suite", "capability_agent", "run", "agent", "--url", server.url, "--model", server.model_id,
                     "--agent", "builtin", "--tasks", ",".join(agent_tasks), "--conds", "base", "--timeout", "300",
                     "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(db)]) == 0
        model = server.model_id
    wall = time.monotonic() - t
    store = open_store(db)
    _, rows = store.query("SELECT category, item, outcome, score FROM capability_results ORDER BY ALL")
    assert len(rows) == len(chat) and {r[0] for r in rows} == {u.category for u in chat}
    assert {r[2] for r in rows} <= {"pass", "wrong", "timeout", "pending", "judge_failed", "infra", "crash", "nofile"}
    doc = score_document(store, model)
    with capsys.disabled():
        print(f"\nchat items {len(chat)}, one run each, in {chat_s:.0f} s; agent tasks {len(agent_tasks)}; "
              f"wall {wall:.0f} s")
        print_scores(doc)
        print(json.dumps([[r[0], r[1], r[2], r[3]] for r in rows]))
