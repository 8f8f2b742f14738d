"""The breakdown: five jobs of language and exact work, each asked three ways through the one run loop, compared item
by item; the scripted personas land where they must (oracle 100%, null 0%, noisy at its share)."""

import json
import os

import pytest

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.breakdown import read_agent_file
from sandbox.chatwork.breakdown_oracle import noisy_breakdown_items
from sandbox.servers.scripted import ScriptedServer
from task_defs import TaskFileError
from task_defs.breakdown.answers import judge, read_answer
from task_defs.breakdown.jobs import load_breakdown_job, load_breakdown_jobs

JOBS = load_breakdown_jobs()


def test_five_jobs_of_at_least_twenty_items_whose_keys_read_as_their_form():
    assert len(JOBS) == 5 and {j.spec.answer for j in JOBS} == {"money", "number", "count", "name", "date"}
    for job in JOBS:
        assert len(job.items) >= 20 and (job.folder / "README.md").is_file(), job.id
        assert job.instruction("first") != job.instruction("tested")
        for it in job.items:
            assert judge(job.spec.answer, it.answer, it.answer) == ("ok", True), (job.id, it.id)


def test_an_answer_must_state_one_value_of_its_form():
    assert judge("money", "148.50", "The total is EUR 148.5.") == ("ok", True)
    assert judge("money", "1234.50", "1,234.50") == ("ok", True)
    assert judge("money", "148.50", "3 chairs make 60, so 148.50") == ("invalid", False)  # which number is meant?
    assert judge("count", "7", "7 people") == ("ok", True) and judge("count", "7", "6") == ("ok", False)
    assert judge("number", "0.42", "0.420") == ("ok", True)
    assert judge("date", "2026-03-09", "It is 2026-03-09.") == ("ok", True)
    assert judge("date", "2026-03-09", "9 March 2026") == ("invalid", False)
    assert judge("name", "blue parcel", "The Blue  Parcel.") == ("ok", True)
    assert judge("name", "blue parcel", "blue") == ("ok", False)
    assert read_answer("count", "2.5") is None


def test_an_agents_answers_file_is_read_as_data_never_through_a_link_or_a_fifo(tmp_path):
    (tmp_path / "plain.json").write_text('{"a": "1"}')
    assert read_agent_file(tmp_path / "plain.json") == '{"a": "1"}'
    os.symlink("/etc/passwd", tmp_path / "link.json")
    assert read_agent_file(tmp_path / "link.json") is None
    os.mkfifo(tmp_path / "fifo.json")  # a read would block forever
    assert read_agent_file(tmp_path / "fifo.json") is None
    (tmp_path / "big.json").write_bytes(b"x" * 3000)
    assert len(read_agent_file(tmp_path / "big.json", limit=1000)) == 1000


def test_a_broken_item_names_the_file_the_item_and_the_field(tmp_path):
    src = next(j for j in JOBS if j.spec.answer == "date")
    job = tmp_path / src.id
    job.mkdir()
    (job / "job.toml").write_text((src.folder / "job.toml").read_text())
    bad = {"id": "x01", "text": "When?", "answer": "next Tuesday"}
    (job / "items.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(TaskFileError, match=r"items.jsonl: field 'x01.answer': 'next Tuesday' is not a date answer"):
        load_breakdown_job(job)


def _breakdown(srv, tmp_path, *extra):
    return main(["breakdown", str(tmp_path / "out.json"), "--url", srv.url, "--agent", "builtin",
                 "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                 "--db", str(tmp_path / "b.duckdb"), *extra])


def test_the_oracle_is_right_every_way_and_both_wordings_give_the_prompt_sensitivity(tmp_path):
    with ScriptedServer(persona="oracle", suite="breakdown", port=0) as srv:
        assert _breakdown(srv, tmp_path, "--prompts", "first") == 0
        assert _breakdown(srv, tmp_path) == 0
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["prompts"] == "tested" and set(doc["jobs"]) == {j.id for j in JOBS}
    for job, f in doc["jobs"].items():
        assert {w: v["accuracy"] for w, v in f["ways"].items()} == {"agent": 1.0, "prompt": 1.0, "item": 1.0}, job
        assert f["winner"] == "tie" and all(p["diff"] == 0 and p["ci"] == [0, 0] for p in f["pairs"].values())
        assert set(f["prompt_sensitivity"]) == {"agent", "prompt", "item"}
    n = sum(len(j.items) for j in JOBS)
    _, rows = ResultsStore(tmp_path / "b.duckdb").query(
        "SELECT wording, way, count(*), sum(\"right\"::INT) FROM breakdown_answers GROUP BY ALL ORDER BY ALL")
    assert rows == [(w, way, n, n) for w in ("first", "tested") for way in ("agent", "item", "prompt")]
    # nothing of the breakdown mixes into the agent tasks' tables
    assert ResultsStore(tmp_path / "b.duckdb").query("SELECT count(*) FROM attempts")[1] == [(0,)]


@pytest.mark.parametrize("persona", ["null", "noisy"])
def test_null_is_never_right_and_noisy_misses_its_share_in_every_way(persona, tmp_path):
    with ScriptedServer(persona=persona, suite="breakdown", port=0) as srv:
        assert _breakdown(srv, tmp_path, "--only", "invoices,dates") == 0
    doc = json.loads((tmp_path / "out.json").read_text())
    wrong = noisy_breakdown_items(JOBS)
    for job, f in doc["jobs"].items():
        items = next(j for j in JOBS if j.id == job).items
        want = 0.0 if persona == "null" else round(1 - sum(f"{job}.{i.id}" in wrong for i in items) / len(items), 4)
        assert {w: v["accuracy"] for w, v in f["ways"].items()} == {"agent": want, "prompt": want, "item": want}


def test_an_unknown_job_is_an_error_listing_the_jobs(capsys):
    assert main(["breakdown", "x.json", "--model", "m", "--only", "poems"]) == 2
    assert "unknown job poems; the jobs are dates, dedupe, invoices, ranking, units" in capsys.readouterr().err
