"""The capability suite end to end: its design contract holds for every bundled item and task (CI runs the
audit); the scripted oracle earns the composite's 100% through the one run loop (chat items) and passes every
agent-category task (the agentic and repo_patch tasks are Ships' capability share), the null persona scores 0
(its non-answers are refusals, 0 in usability and in each category); rows land in capability_results; judged
items stay pending without a judge, and a regrade with the scripted judge records its three votes per item."""

import json

import pytest

from kbench_dagster.cli import main
from kbench_dagster.commands.capability import score_document
from kbench_dagster.reporting.board_capability import agent_categories, ships_rows
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.capability import CapabilityItems
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.capability.models import CATEGORIES, JUDGED, SHIPS
from task_defs.loader import CAPABILITY_AGENT


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))


def test_the_bundled_suite_keeps_its_design_contract(capsys):
    assert main(["capability", "audit", "--workers", "2"]) == 0, capsys.readouterr().out
    said = capsys.readouterr()
    assert "FAIL" not in said.out
    counts = dict(kv.split("=") for kv in said.err.splitlines()[0].split())
    assert set(counts) == set(CATEGORIES) and all(int(n) >= 4 for n in counts.values())
    assert sum(int(n) for n in counts.values()) >= 140


def capability_run(tmp_path, persona, run_id, db):
    with ScriptedServer(persona, suite="capability", port=0) as srv:
        assert main(["capability", "run", str(tmp_path / f"{run_id}.json"), "--url", srv.url, "--seeds", "1",
                     "--parallel", "2", "--run-id", run_id, "--runs", str(tmp_path / "runs"), "--work",
                     str(tmp_path / "work"), "--db", str(db), "--context-tokens", "4096"]) == 0
        model = srv.model_id
    return model


def agent_run(tmp_path, persona, run_id, db):
    """The agent categories through `kbench --suite capability_agent run`, into the same store."""
    suite = load_suite(CAPABILITY_AGENT)
    with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
        assert main(["--suite", CAPABILITY_AGENT, "run", run_id, "--model", srv.model_id, "--url", srv.url,
                     "--agent", "builtin", "--conds", "base", "--workers", "2", "--runs", str(tmp_path / "runs"),
                     "--work", str(tmp_path / "work"), "--db", str(db)]) == 0
    return suite


def test_the_oracle_earns_everything_and_null_nothing(tmp_path, capsys):
    db = tmp_path / "c.duckdb"
    model = capability_run(tmp_path, "oracle", "cap-oracle", db)
    store = ResultsStore(db)
    cols, rows = store.query("SELECT item, category, outcome, score FROM capability_results WHERE run_id = ?",
                             ["cap-oracle"])
    found = [dict(zip(cols, r)) for r in rows]
    assert len(found) == len(CapabilityItems().units)
    pending = {r["item"] for r in found if r["outcome"] == "pending"}
    # pending: exactly the judged items, those of the judged categories and the format conflicts elsewhere
    judged = {u.id for u in CapabilityItems().units if u.item.grader.kind == "judge"}
    assert pending == judged and {r["category"] for r in found if r["item"] in pending} > set(JUDGED)
    assert all(r["outcome"] == "pass" and r["score"] == 1.0 for r in found if r["item"] not in pending), \
        [r for r in found if r["outcome"] != "pass" and r["item"] not in pending]
    doc = score_document(store, model)
    assert doc["composite"] == 1.0 and doc["usability"] == 1.0 and sorted(doc["not_graded"]) == sorted(pending)

    suite = agent_run(tmp_path, "oracle", "cap-agent-oracle", db)
    _, graded = store.query("SELECT task, outcome FROM gradings WHERE run_id = ?", ["cap-agent-oracle"])
    assert len(graded) == len(suite.tasks) and all(o == "pass" for _, o in graded), graded
    ships = ships_rows(store)
    [row] = [r for r in ships["rows"] if r["model"] == model]
    assert row["ships"] == 1.0 and set(row["counted"]) == {t for t, (c, _) in agent_categories().items()
                                                           if c in SHIPS}
    assert score_document(store, model)["composite"] == 1.0  # the agent categories count in Thinks too

    model = capability_run(tmp_path, "null", "cap-null", db)
    doc = score_document(store, model)
    assert doc["composite"] == 0.0 and doc["usability"] == 0.0 and doc["refusals"] == doc["graded"]
    out = json.loads((tmp_path / "cap-null.json").read_text())
    assert out["composite"] == 0.0
    capsys.readouterr()
    assert main(["capability", "difficulty", "--db", str(db)]) == 0
    said = capsys.readouterr().out
    # two models (the oracle and null) differ on every graded item: nothing is saturated
    assert said.startswith("2 models,") and "saturated (every model >= 0.95): 0" in said and "SATURATED" not in said


def test_a_regrade_with_the_scripted_judge_records_three_votes_per_judged_item(tmp_path):
    db = tmp_path / "j.duckdb"
    with ScriptedServer("oracle", suite="capability", port=0) as srv:
        assert main(["capability", "run", str(tmp_path / "o.json"), "--url", srv.url, "--seeds", "1", "--only",
                     ",".join(JUDGED), "--run-id", "judged", "--runs", str(tmp_path / "runs"), "--work",
                     str(tmp_path / "work"), "--db", str(db)]) == 0
    with ScriptedServer("judge", port=0) as judge:
        assert main(["capability", "regrade", "--run-id", "judged", "--runs", str(tmp_path / "runs"), "--work",
                     str(tmp_path / "work"), "--db", str(db), "--judge", f"scripted-judge@{judge.url}"]) == 0
    _, rows = ResultsStore(db).query("SELECT item, outcome, judge, checks FROM capability_results "
                                     "WHERE grader = 'judge'")
    assert rows
    kind = CapabilityItems()
    for item_id, outcome, judge_json, checks_json in rows:
        votes = json.loads(judge_json)
        assert outcome in ("pass", "wrong") and votes["model"] == "scripted-judge" and len(votes["votes"]) == 3
        criteria = kind.get(item_id).item.grader.criteria
        # the scripted judge's rule, by hand: a criterion is met by the median when its length % 4 is 2 or 3
        assert votes["median"] == [len(c.strip()) % 4 in (2, 3) for c in criteria]
        assert [c["passed"] for c in json.loads(checks_json)] == votes["median"]
