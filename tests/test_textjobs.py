"""The text jobs: items that hold their answer, scorers a person would accept, and `kbench textjobs` through the one
run loop against the scripted personas (oracle 100%, null 0%, noisy at its set share)."""

import json
import subprocess
import sys

import pytest
from conftest import REPO, kill_mid_run

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.oracle import NOISY_REPLY, NOISY_SHARE, noisy_items
from sandbox.chatwork.textjobs import TextJobs
from sandbox.engine.attempt_ledger import RunLedger
from sandbox.servers.scripted import ScriptedServer
from task_defs import TaskFileError
from task_defs.textjobs.loader import load_job, load_jobs
from task_defs.textjobs.scoring import gold_reply, score

JOBS = load_jobs()
BY_ID = {j.id: j for j in JOBS}


def test_five_families_of_at_least_forty_items_each_and_every_answer_key_scores_full_marks():
    assert sorted(j.family for j in JOBS) == sorted(["classify", "fix", "table", "actions", "facts"])
    for job in JOBS:
        assert len(job.items) >= 40, job.id
        assert (job.folder / "README.md").is_file(), job.id
        for item in job.items:
            right = score(job, item, gold_reply(job, item))
            assert right.passed and right.parse == "ok", (job.id, item.id, right)
            wrong = score(job, item, NOISY_REPLY)
            assert not wrong.passed, (job.id, item.id)
    labels = BY_ID["tickets"].spec.labels
    assert {i.label for i in BY_ID["tickets"].items} == set(labels)


def _classify(reply):
    job = BY_ID["tickets"]
    item = next(i for i in job.items if i.label == "billing")
    return score(job, item, reply)


def test_a_classification_reply_is_read_leniently_but_must_be_a_label():
    for reply in ("billing", " Billing.", '"billing".', "`billing`"):
        assert _classify(reply).passed, reply
    s = _classify("The billing team")
    assert (s.parse, s.passed, s.predicted) == ("invalid", False, None)
    s = _classify("shipping")
    assert (s.parse, s.passed, s.predicted, s.expected) == ("ok", False, "shipping", "billing")


def test_a_fix_earns_partial_credit_and_a_rewrite_is_penalised():
    job = BY_ID["grammar"]
    item = next(i for i in job.items if i.text != i.fixed)
    assert score(job, item, f"```\n{item.fixed}\n```").passed
    untouched = score(job, item, item.text)
    assert untouched.score == 0.0 and not untouched.passed
    rewrite = score(job, item, item.fixed + " In short, that is what happened, more or less, as far as we know.")
    assert rewrite.score < 0
    correct = next(i for i in job.items if i.text == i.fixed)
    assert score(job, correct, correct.text).passed and score(job, correct, correct.text + " Indeed.").score < 0
    assert score(job, item, "   ").parse == "invalid"


def test_a_table_counts_cells_and_needs_the_header():
    job = BY_ID["tables"]
    item = job.items[0]
    cols, rows = item.columns, item.rows
    header = ",".join(cols)
    missing_row = "\n".join([header] + [",".join(f'"{c}"' for c in r) for r in rows[:-1]])
    s = score(job, item, missing_row)
    assert s.tp == s.n_pred == len(cols) * (len(rows) - 1) and s.n_gold == len(cols) * len(rows) and not s.passed
    extra = gold_reply(job, item) + ",".join(["Nobody"] + ["x"] * (len(cols) - 1)) + "\n"
    s = score(job, item, extra)
    assert s.tp == s.n_gold and s.n_pred == s.n_gold + len(cols) and not s.passed
    assert score(job, item, gold_reply(job, item).replace(header, header.upper(), 1)).passed
    assert score(job, item, gold_reply(job, item).replace(header, "a,b", 1)).parse == "invalid"


def test_action_items_pair_by_owner_and_count_fields():
    job = BY_ID["notes"]
    item = next(i for i in job.items if len(i.actions) >= 2)
    acts = [{"owner": a.owner.upper(), "task": " ".join(a.keywords) + " soon", "due": a.due} for a in item.actions]
    assert score(job, item, json.dumps(list(reversed(acts)))).passed
    acts[0]["due"] = "1999-01-01" if item.actions[0].due is None else None
    s = score(job, item, "Here you go:\n" + json.dumps(acts))
    assert s.tp == s.n_gold - 1 and not s.passed
    s = score(job, item, json.dumps(acts[1:]))
    assert s.tp == s.n_pred == s.n_gold - 3
    assert score(job, item, '{"owner": "x"}').parse == "invalid"


def test_news_facts_are_judged_field_by_field():
    job = BY_ID["news"]
    item = job.items[0]
    f = item.facts
    got = {"who": f"The {f.who}.", "what": " ".join(item.what_keywords), "where": f.where.upper(), "when": f.when,
           "number": float(f.number)}
    assert score(job, item, json.dumps(got)).passed
    got["when"] = "someday"
    s = score(job, item, json.dumps(got))
    assert s.score == 0.8 and s.fields["when"] is False and s.fields["who"] is True


def test_a_broken_item_names_the_file_the_item_and_the_field(tmp_path):
    job = tmp_path / "tickets"
    job.mkdir()
    (job / "job.toml").write_text((BY_ID["tickets"].folder / "job.toml").read_text())
    lines = (BY_ID["tickets"].folder / "items.jsonl").read_text().splitlines()[:3]
    bad = json.loads(lines[1])
    bad["label"] = "refunds"
    (job / "items.jsonl").write_text("\n".join([lines[0], json.dumps(bad), lines[2]]) + "\n")
    with pytest.raises(TaskFileError, match=rf"items.jsonl: field '{bad['id']}.label': 'refunds' is not one of .* "
                                            r"\(line 2\)"):
        load_job(job)
    del bad["label"]
    (job / "items.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(TaskFileError, match=rf"items.jsonl: field '{bad['id']}.label': Field required \(line 1\)"):
        load_job(job)
    (job / "items.jsonl").write_text(lines[0] + "\n" + lines[1][:-5] + "\n")  # a line cut short
    with pytest.raises(TaskFileError, match=r"items.jsonl: field 'line 2': not JSON: "):
        load_job(job)


def test_an_unknown_job_is_an_error_listing_the_jobs(capsys):
    with pytest.raises(ValueError, match="unknown job poems; the jobs are grammar, news, notes, tables, tickets"):
        TextJobs(JOBS).select("tickets,poems")
    assert main(["textjobs", "x.json", "--model", "m", "--only", "poems"]) == 2
    assert "unknown job poems" in capsys.readouterr().err


def _textjobs(srv, tmp_path, out, *extra):
    return main(["textjobs", str(tmp_path / out), "--url", srv.url, "--runs", str(tmp_path / "runs"),
                 "--work", str(tmp_path / "work"), "--db", str(tmp_path / "t.duckdb"), *extra])


def test_the_oracle_scores_everything_and_the_store_and_the_json_agree(tmp_path, capsys):
    with ScriptedServer(persona="oracle", suite="textjobs", port=0, slots=4) as srv:
        assert _textjobs(srv, tmp_path, "out.json", "--parallel", "4") == 0
        capsys.readouterr()
        assert _textjobs(srv, tmp_path, "again.json") == 0  # the same command: nothing is asked again
        assert "already done 217" in capsys.readouterr().err
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc == json.loads((tmp_path / "again.json").read_text())
    assert set(doc["jobs"]) == set(BY_ID)
    for job, f in doc["jobs"].items():
        assert f["items"] == len(BY_ID[job].items) and f["pass_rate"] == 1.0 and f["invalid"] == 0
        assert f[f["headline"]] == 1.0
    cols, rows = ResultsStore(tmp_path / "t.duckdb").query(
        "SELECT job, count(*), sum(passed::INT), count(DISTINCT prompt), min(length(reply)) FROM textjob_replies "
        "GROUP BY job ORDER BY job")
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [(j, len(BY_ID[j].items), len(BY_ID[j].items),
                                                         len(BY_ID[j].items)) for j in sorted(BY_ID)]
    assert all(r[4] > 0 for r in rows)


@pytest.mark.parametrize("persona", ["null", "noisy"])
def test_null_scores_nothing_and_noisy_lands_at_its_share(persona, tmp_path):
    with ScriptedServer(persona=persona, suite="textjobs", port=0) as srv:
        assert _textjobs(srv, tmp_path, "out.json", "--limit", "12") == 0
    doc = json.loads((tmp_path / "out.json").read_text())
    wrong = noisy_items(TextJobs(JOBS))
    for job, f in doc["jobs"].items():
        assert f["items"] == 12
        if persona == "null":
            assert f["passed"] == 0, job
        else:
            missed = sum(f"{job}.{i.id}" in wrong for i in BY_ID[job].items[:12])
            assert f["passed"] == 12 - missed, job
    if persona == "noisy":  # over every job's whole item list the share is exact up to rounding
        kind = TextJobs(JOBS)
        assert abs(len(wrong) / len(kind.units) - NOISY_SHARE) < 0.01


def test_a_killed_run_resumes_with_exactly_one_reply_per_item(tmp_path):
    with ScriptedServer(persona="oracle", suite="textjobs", port=0, latency=0.1) as srv:
        cmd = [sys.executable, "-m", "kbench_dagster.cli", "textjobs", str(tmp_path / "out.json"), "--url", srv.url,
               "--limit", "4", "--parallel", "2", "--server-slots", "0", "--runs", str(tmp_path / "runs"),
               "--work", str(tmp_path / "work"), "--db", str(tmp_path / "t.duckdb")]
        run_dir = tmp_path / "runs" / "textjobs-scripted-oracle"
        before = kill_mid_run(cmd, run_dir)
        assert 5 <= before < 20, "the kill should land in the middle of the run"
        again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"already done {before}" in again.stderr
    keys = [e["key"] for e in RunLedger(run_dir).entries() if e["type"] == "result"]
    assert len(keys) == len(set(keys)) == 20 and not list(run_dir.glob("**/*.partial"))
    doc = json.loads((tmp_path / "out.json").read_text())
    assert all(f["passed"] == 4 for f in doc["jobs"].values())
    assert ResultsStore(tmp_path / "t.duckdb").query("SELECT count(*) FROM textjob_replies")[1] == [(20,)]


def test_macro_f1_counts_only_the_labels_a_slice_meets():
    from task_defs.textjobs.metrics import macro_f1

    labels = BY_ID["tickets"].spec.labels
    pairs = [("billing", "billing"), ("shipping", "technical"), ("account", None)]
    # billing 1.0; technical, shipping, account 0.0; feedback never met: not a free 1.0
    assert macro_f1(pairs, labels) == 0.25
    assert macro_f1([("billing", "billing")], labels) == 1.0 and macro_f1([], labels) is None
