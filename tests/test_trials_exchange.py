"""How a trial is asked: the short exchange (a model that calls one step at a time is judged on the whole chain),
the answer-format negotiation against a server that refuses structured output, the reply cache (a strike extended
from one sample to three pays only for the new samples), and provider failures kept out of the scores."""

import json
import shutil
import sys

from conftest import kill_mid_run

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.trials import ToolTrials
from sandbox.engine.attempt_reader import records_of
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import Conversation, Reply, ToolCall
from task_defs.trials.grading import reference_answer
from task_defs.trials.loader import normalise, normalised_prompt


class OneStepAtATime:
    """Makes the reference calls of a trial one per reply, waiting for each result, then says it is done."""

    name = "one-step"

    def __init__(self):
        self.by_prompt = {normalised_prompt(u.trial): u.trial for u in ToolTrials().units}

    def respond(self, conv: Conversation) -> Reply:
        trial = self.by_prompt[normalise(conv.first_user_text)]
        calls = reference_answer(trial).calls
        n = conv.assistant_turns
        if n < len(calls):
            return Reply(None, (ToolCall(f"c{n}", calls[n].name, calls[n].arguments),))
        return Reply("All done.")


class Says:
    name = "says"

    def __init__(self, reply: Reply):
        self.reply = reply

    def respond(self, conv: Conversation) -> Reply:
        return self.reply


def strike(tmp_path, url: str, run_id: str, *extra: str) -> dict:
    out = tmp_path / f"{run_id}.json"
    assert main(["trials", "run", str(out), "--url", url, "--run-id", run_id, "--runs", str(tmp_path / "runs"),
                 "--work", str(tmp_path / "work"), "--db", str(tmp_path / "t.duckdb"), *extra]) == 0
    return json.loads(out.read_text())


def rows(tmp_path, run_id: str) -> list[tuple]:
    _, got = ResultsStore(tmp_path / "t.duckdb").query(
        "SELECT trial, outcome, cause, response_format FROM trial_results WHERE run_id = ? ORDER BY trial", [run_id])
    return got


def test_a_model_that_calls_one_step_at_a_time_passes_the_chains(tmp_path):
    flows = [u for u in ToolTrials().units if u.family.id == "flows" and u.trial.oracle.kind != "no_call"][:12]
    assert any(len(u.trial.oracle.calls) >= 2 for u in flows)
    with ScriptedServer(OneStepAtATime(), port=0) as srv:
        doc = strike(tmp_path, srv.url, "steps", "--only", "flows", "--limit", "12", "--no-cache")
    assert doc["families"]["flows"]["pass_at_1"] == 1.0, doc["causes"]


def test_negotiation_steps_down_only_on_the_servers_refusal(tmp_path):
    only = ["--only", "classify,extract", "--limit", "3"]
    with ScriptedServer("oracle", suite="trials", port=0, reject_formats=("json_schema",)) as srv:
        doc = strike(tmp_path, srv.url, "object", *only, "--no-cache")
        assert srv.formats_seen[0] == "json_schema" and set(srv.formats_seen[1:]) == {"json_object"}
    assert doc["response_format"] == "json_object" and doc["families"]["classify"]["pass_at_1"] == 1.0
    assert {r[3] for r in rows(tmp_path, "object")} == {"json_object"}
    with ScriptedServer("oracle", suite="trials", port=0, reject_formats=("json_schema", "json_object")) as srv:
        doc = strike(tmp_path, srv.url, "text", *only, "--no-cache")
        assert srv.formats_seen[:2] == ["json_schema", "json_object"] and set(srv.formats_seen[2:]) == {None}
    assert doc["response_format"] == "text" and {r[1] for r in rows(tmp_path, "text")} == {"pass"}
    # a pinned format never steps down: the refusals are recorded as the run's, cause "refused"
    with ScriptedServer("oracle", suite="trials", port=0, reject_formats=("json_schema",)) as srv:
        strike(tmp_path, srv.url, "pinned", *only, "--no-cache", "--response-format", "json_schema")
        assert set(srv.formats_seen) == {"json_schema"}
    assert {(r[1], r[2]) for r in rows(tmp_path, "pinned")} == {("wrong", "refused")}
    # a wrong answer is never a reason to step down: the null persona is asked in json_schema throughout
    with ScriptedServer("null", suite="trials", port=0) as srv:
        strike(tmp_path, srv.url, "null", *only, "--no-cache")
        assert set(srv.formats_seen) == {"json_schema"}


def test_the_cache_extends_a_strike_without_asking_again(tmp_path):
    only = ["--only", "select,classify", "--limit", "4"]
    with ScriptedServer("oracle", suite="trials", port=0) as srv:
        strike(tmp_path, srv.url, "one", *only, "--samples", "1", "--temperature", "0")
        first = srv.chat_requests
        doc = strike(tmp_path, srv.url, "three", *only, "--samples", "3", "--temperature", "0")
        # samples 2 and 3 are new: twice what the first strike asked, not three times
        assert srv.chat_requests - first == 2 * first
        again = srv.chat_requests
        strike(tmp_path, srv.url, "again", *only, "--samples", "3", "--temperature", "0")
        assert srv.chat_requests == again  # all of it answered from the cache
    assert doc["families"]["select"]["runs"] == 12 and len(rows(tmp_path, "again")) == 24
    assert {r[1] for r in rows(tmp_path, "again")} == {"pass"}
    with ScriptedServer("oracle", suite="trials", port=0, model_id="another-model") as srv:
        strike(tmp_path, srv.url, "other", *only, "--temperature", "0")
        assert srv.chat_requests > 0  # another model is asked afresh


def test_an_attempt_whose_later_request_is_not_cached_is_asked_again_from_its_start(tmp_path):
    """The replay pass gives up an attempt at its first request the cache lacks; a worker then runs it whole, and
    its record holds that one try (no events of the given-up replay)."""
    only = ["--only", "select", "--limit", "4", "--temperature", "0"]
    with ScriptedServer("oracle", suite="trials", port=0) as srv:
        strike(tmp_path, srv.url, "first", *only)
        pack = tmp_path / "runs" / "cache" / "trials" / "replies.jsonl"
        lines = pack.read_bytes().splitlines(keepends=True)
        # keep the replies that call a tool (each trial's first); drop the words that follow a call's result
        calls = [line for line in lines if json.loads(line)["reply"].get("calls")]
        assert 0 < len(calls) < len(lines)
        pack.write_bytes(b"".join(calls))
        asked = srv.chat_requests
        strike(tmp_path, srv.url, "second", *only)
        assert srv.chat_requests - asked == len(lines) - len(calls)  # only the dropped replies are asked again
    assert [r[1] for r in rows(tmp_path, "second")] == ["pass"] * 4
    records = records_of(tmp_path / "runs" / "second")
    assert len(records) == 4
    events = [[e for e in r.events() if e["type"] in ("request", "reply")] for r in records]
    # as many requests as the first strike made, each answered once: nothing left over from a given-up replay
    assert sum(1 for ev in events for e in ev if e["type"] == "request") == len(lines)
    assert all([e["type"] for e in ev] == ["request", "reply"] * (len(ev) // 2) for ev in events)
    # and some attempt had its first reply from the cache and its second from the server
    assert any([bool(e.get("cached")) for e in ev if e["type"] == "reply"] == [True, False] for ev in events)


def test_an_empty_completion_is_the_providers_failure_not_a_wrong_answer(tmp_path):
    for reply, why in ((Reply(""), "an empty completion"),
                       (Reply(None, (ToolCall("c0", "get_weather", "{city: Oslo"),)), "not a JSON object")):
        with ScriptedServer(Says(reply), port=0) as srv:
            strike(tmp_path, srv.url, "broken", "--only", "select", "--limit", "1")
            asked = srv.chat_requests
        assert asked >= 2  # requeued and asked again: a provider failure is never kept in the reply cache
        _, got = ResultsStore(tmp_path / "t.duckdb").query(
            "SELECT outcome, infra_error FROM trial_results WHERE run_id = 'broken'")
        assert got and all(o == "infra" and why in e for o, e in got), got
        (tmp_path / "t.duckdb").unlink()
        shutil.rmtree(tmp_path / "runs")


def test_stats_compare_and_triage_read_the_store_and_refuse_stale_rules(tmp_path, capsys):
    only = ["--only", "select,classify", "--limit", "5", "--samples", "2", "--temperature", "0"]
    with ScriptedServer("oracle", suite="trials", port=0) as srv:
        strike(tmp_path, srv.url, "good", *only)
    with ScriptedServer("null", suite="trials", port=0) as srv:
        strike(tmp_path, srv.url, "bad", *only)
    capsys.readouterr()
    db = ["--db", str(tmp_path / "t.duckdb")]
    assert main(["trials", "stats", "good", "--json", *db]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["overall"]["pass_at_1"] == 1.0 and doc["overall"]["trials"] == 10 and doc["k"] == 2
    assert doc["overall"]["clustered_ci"][0] <= doc["overall"]["pass_at_1_ci"][0]
    assert main(["trials", "compare", "good", "bad", "--json", *db]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["common"], doc["b"], doc["c"]) == (10, 10, 0) and doc["mcnemar"]["p_exact"] < 0.01
    assert sorted(doc["discordant"]) == ["classify", "select"]
    assert main(["trials", "triage", "bad", "--json", *db]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["failures"] == 20 and sum(g["count"] for g in doc["groups"]) == 20
    assert main(["trials", "triage", "bad", "--trial", "select_weather_oslo", *db]) == 0
    assert "sample 2: wrong" in capsys.readouterr().out
    # evidence graded under other oracle rules is refused; a regrade of the kept replies brings it up to date
    with ResultsStore(tmp_path / "t.duckdb").connect() as con:
        con.execute("UPDATE trial_results SET rules = 'older' WHERE run_id = 'good'")
    assert main(["trials", "stats", "good", *db]) != 0
    assert "kbench regrade good" in capsys.readouterr().err
    assert main(["regrade", "good", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), *db]) == 0
    assert main(["trials", "stats", "good", *db]) == 0


def test_a_strike_killed_midway_keeps_its_rows_and_resumes(tmp_path):
    """Each answer is recorded as it is graded: a strike killed at any point keeps what it did, and the same command
    asks only for the rest (the killed run's replies are not even asked again: the cache has them)."""
    runs = tmp_path / "runs"
    with ScriptedServer("oracle", suite="trials", port=0, latency=0.05) as srv:
        cmd = [sys.executable, "-m", "kbench_dagster.cli", "trials", "run", str(tmp_path / "t.json"), "--url", srv.url,
               "--run-id", "killed", "--only", "select,classify", "--limit", "15", "--runs", str(runs), "--work",
               str(tmp_path / "work"), "--db", str(tmp_path / "t.duckdb")]
        left = kill_mid_run(cmd, runs / "killed", at_least=6)
        assert 6 <= left < 30
        asked_before = srv.chat_requests
        strike(tmp_path, srv.url, "killed", "--only", "select,classify", "--limit", "15")
        # the rest only: the select trials take two requests each (the call, then words after its result)
        assert srv.chat_requests - asked_before <= 2 * (30 - left)
    got = rows(tmp_path, "killed")
    assert len(got) == 30 and {r[1] for r in got} == {"pass"}


class WritesOneStepAtATime(OneStepAtATime):
    """The same, each call written as fenced JSON in the text (a model without native calls)."""

    def respond(self, conv: Conversation) -> Reply:
        reply = super().respond(conv)
        if not reply.tool_calls:
            return reply
        call = reply.tool_calls[0]
        return Reply("```json\n" + json.dumps({"name": call.name, "arguments": call.arguments}) + "\n```")


def test_calls_written_in_the_text_get_results_too(tmp_path):
    with ScriptedServer(WritesOneStepAtATime(), port=0) as srv:
        doc = strike(tmp_path, srv.url, "written", "--only", "flows", "--limit", "12", "--no-cache")
    assert doc["families"]["flows"]["pass_at_1"] == 1.0, doc["causes"]
    _, got = ResultsStore(tmp_path / "t.duckdb").query(
        "SELECT max(rounds), min(forms) FROM trial_results WHERE run_id = 'written'")
    assert got[0][0] >= 3 and got[0][1] == "text"  # chains of three calls, each answered as it came
