"""A reply nested a few thousand brackets deep is the model's malformed answer in every chat kind, never infra: the
parsers read agent and model text with bounded depth (sandbox/judge/parse.py), the rest of the job is scored, the
strike's figures and board still build, and `kbench regrade` repairs an attempt an older parser broke on."""

import json

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_html import slug
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.breakdown import BreakdownAgent, BreakdownBatch
from sandbox.chatwork.capability import REPLIES, CapabilityItems, calls_reply
from sandbox.chatwork.oracle import TextJobPersona
from sandbox.chatwork.textjobs import TextJobs
from sandbox.chatwork.trials import ToolTrials, TrialPersona
from sandbox.engine.attempt_reader import records_of
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import Conversation, Reply, ToolCall
from task_defs.breakdown.prompts import ANSWERS_FILE
from task_defs.trials.grading import reference_answer
from task_defs.trials.loader import normalise, normalised_prompt

N = 3000
DEEP = "[" * N + "]" * N
DEEP_OBJECT = '{"a": ' + DEEP + "}"


class DeepFor:
    """The oracle persona of a suite, except for the items named: those get the reply given (their first turn)."""

    def __init__(self, inner, replies: dict[str, Reply], key):
        self.name, self.inner, self.replies, self.key = "deep", inner, replies, key

    def respond(self, conv: Conversation):
        which = self.key(conv)
        if which in self.replies:
            return self.replies[which] if conv.assistant_turns == 0 else Reply("Done.")
        return self.inner.respond(conv)


def _trial_key():
    by_prompt = {normalised_prompt(u.trial): u.id for u in ToolTrials().units}
    return lambda conv: by_prompt.get(normalise(conv.texts("user")[-1])) if conv.texts("user") else None


def _trial_rows(db, run_id):
    return ResultsStore(db).query("SELECT trial, outcome, cause, infra_error, rules FROM trial_results "
                                  "WHERE run_id = ? ORDER BY trial", [run_id])[1]


def _strike(tmp_path, srv, run_id, *extra):
    assert main(["trials", "run", str(tmp_path / f"{run_id}.json"), "--url", srv.url, "--run-id", run_id,
                 "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                 "--db", str(tmp_path / "t.duckdb"), *extra]) == 0


def _trial_replies() -> dict[str, Reply]:
    units = {u.id: u for u in ToolTrials().units}
    tool = reference_answer(units["select_timer_tea"].trial).calls[0].name
    return {
        # native arguments nested 3000 deep: JSON the model wrote, so a wrong call, not the server's broken parser
        "select_weather_oslo": Reply(None, (ToolCall("c0", "get_weather", '{"city": ' + DEEP + "}"),)),
        # the same written as a call in the text
        "select_timer_tea": Reply(f'```json\n{{"name": "{tool}", "arguments": {DEEP_OBJECT}}}\n```'),
        "classify_intent_alarm_base": Reply('{"label": ' + DEEP + "}"),
        "extract_tracking_number": Reply(DEEP_OBJECT),
    }


def test_a_deep_reply_or_call_is_the_models_wrong_answer_and_the_strike_still_has_its_figures(tmp_path, capsys):
    replies = _trial_replies()
    with ScriptedServer(DeepFor(TrialPersona("oracle"), replies, _trial_key()), port=0) as srv:
        _strike(tmp_path, srv, "deep", "--only", "select,classify,extract", "--limit", "3")
    rows = {r[0]: r for r in _trial_rows(tmp_path / "t.duckdb", "deep")}
    assert len(rows) == 9
    for trial, (_, outcome, cause, infra_error, rules) in rows.items():
        assert infra_error is None and rules, (trial, outcome, infra_error)
        assert outcome == ("wrong" if trial in replies else "pass"), (trial, outcome, cause)
    assert rows["extract_tracking_number"][2] == "not_json"
    db = ["--db", str(tmp_path / "t.duckdb")]
    capsys.readouterr()
    assert main(["trials", "stats", "deep", "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["trials"] == 9
    assert main(["trials", "triage", "deep", "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["infra"] == 0


def test_one_infra_row_keeps_no_strike_from_stats_triage_or_the_board(tmp_path, capsys):
    """An empty completion is the provider's failure: its row is infra, with no oracle rules (nothing was graded),
    as the rows older parsers left. The strike's figures leave it out and go on."""
    replies = {"select_weather_oslo": Reply("")}
    with ScriptedServer(DeepFor(TrialPersona("oracle"), replies, _trial_key()), port=0) as srv:
        _strike(tmp_path, srv, "holed", "--only", "select", "--limit", "3")
    rows = {r[0]: r[1] for r in _trial_rows(tmp_path / "t.duckdb", "holed")}
    assert len(rows) == 3 and rows.pop("select_weather_oslo") == "infra" and set(rows.values()) == {"pass"}
    db = ["--db", str(tmp_path / "t.duckdb")]
    capsys.readouterr()
    assert main(["trials", "stats", "holed", "--json", *db]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["overall"]["trials"] == 2 and doc["overall"]["pass_at_1"] == 1.0 and doc["overall"]["unscored"] == 1
    assert main(["trials", "triage", "holed", "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["infra"] == 1
    site = build_board(ResultsStore(tmp_path / "t.duckdb"), tmp_path / "site").parent
    assert (site / f"trials/{slug('holed')}.html").is_file()
    assert "id=stale" not in (site / "trials.html").read_text()


def test_regrade_turns_a_harness_error_on_a_deep_reply_into_the_models_verdict(tmp_path, monkeypatch, capsys):
    """The older code's failure, played again: a parser that raises RecursionError on the deep reply, once while
    asking (the reply is in the events only) and once while grading (it is kept too). Each attempt is recorded as
    infra; a regrade with today's parsers plays the recorded replies back and records the model's wrong answer."""
    import sandbox.chatwork.trials as trials
    import sandbox.engine.attempt_results as attempt_results
    from kbench_dagster.reporting import trial_stats

    asking, grading = trials.provider_failure, trials.answer_of

    def old_asking(reply):
        if any(len(c.get("arguments") or "") > N for c in reply.tool_calls):
            raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")
        return asking(reply)

    def old_grading(kept, offered, trial=None):
        if trial is not None and trial.id == "extract_tracking_number":
            raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")
        return grading(kept, offered, trial)

    replies = {k: v for k, v in _trial_replies().items() if k in ("select_weather_oslo", "extract_tracking_number")}
    monkeypatch.setattr(trials, "provider_failure", old_asking)
    monkeypatch.setattr(trials, "answer_of", old_grading)
    with ScriptedServer(DeepFor(TrialPersona("oracle"), replies, _trial_key()), port=0) as srv:
        _strike(tmp_path, srv, "old", "--only", "select,extract", "--limit", "2")
    monkeypatch.undo()
    before = {r[0]: r for r in _trial_rows(tmp_path / "t.duckdb", "old")}
    assert {t: r[1] for t, r in before.items() if r[1] == "infra"} == dict.fromkeys(replies, "infra")
    assert all(before[t][3].startswith("harness error") for t in replies)
    assert trial_stats.HARNESS_ERROR == attempt_results.HARNESS_ERROR  # how the figures know a harness error's row
    db = ["--db", str(tmp_path / "t.duckdb")]
    assert main(["trials", "stats", "old", *db]) == 0  # the harness errors are named, the figures built
    assert "kbench regrade old" in capsys.readouterr().err
    assert main(["regrade", "old", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), *db]) == 0
    after = {r[0]: r for r in _trial_rows(tmp_path / "t.duckdb", "old")}
    for trial, (_, outcome, cause, infra_error, rules) in after.items():
        assert infra_error is None and rules, (trial, outcome, infra_error)
        assert outcome == ("wrong" if trial in replies else "pass"), (trial, outcome, cause)


class _DeepText(TextJobPersona):
    def __init__(self, deep: set[str]):
        super().__init__("oracle")
        self.deep = deep

    def respond(self, conv: Conversation) -> Reply:
        unit = self.answers.find(conv.first_user_text)
        return Reply(DEEP_OBJECT) if unit is not None and unit.id in self.deep else super().respond(conv)


def test_a_deep_text_job_reply_is_invalid_and_the_rest_of_its_job_is_scored(tmp_path):
    kind = TextJobs()
    deep = {kind.select("notes", 1)[0].id, kind.select("news", 1)[0].id}
    with ScriptedServer(_DeepText(deep), port=0) as srv:
        assert main(["textjobs", str(tmp_path / "out.json"), "--url", srv.url, "--only", "notes,news", "--limit", "3",
                     "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(tmp_path / "t.duckdb")]) == 0
    doc = json.loads((tmp_path / "out.json").read_text())
    for job in ("notes", "news"):
        f = doc["jobs"][job]
        assert (f["items"], f["replies"], f["passed"], f["invalid"], f["unscored"]) == (3, 3, 2, 1, 0), (job, f)
    assert {(i["job"], i["outcome"]) for i in doc["items"] if f"{i['job']}.{i['item']}" in deep} == \
        {("notes", "wrong"), ("news", "wrong")}


def test_a_deep_capability_answer_in_yaml_json_or_a_calls_arguments_fails_its_checks(tmp_path):
    kind = CapabilityItems()
    units = {u.id: u for u in kind.units}
    deep_yaml = "services: " + DEEP + "\n"
    for unit_id, reply in (("structured_output_services_yaml", deep_yaml), ("iac_k8s_deployment", deep_yaml),
                           ("structured_output_contact_card", DEEP_OBJECT),
                           ("tool_use_weather_units", calls_reply("", [{"name": "get_weather",
                                                                        "arguments": DEEP_OBJECT}]))):
        kept = {REPLIES: json.dumps({"replies": [reply], "context_tokens": None})}
        v = kind.grade_kept(units[unit_id], kept, tmp_path / unit_id, IsolationConfig(), None)
        assert v.outcome == "wrong" and v.extra["capability"]["score"] < 1, (unit_id, v)


def test_a_deep_breakdown_answer_holds_no_answers_in_any_way(tmp_path):
    batch = BreakdownBatch()
    job = batch.jobs[0]
    v = batch.grade_kept(job, {"reply.txt": DEEP_OBJECT}, tmp_path, IsolationConfig(), None)
    assert v.outcome == "wrong" and not any(i["right"] for i in v.extra["breakdown"]["items"].values())
    agent = BreakdownAgent()
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ANSWERS_FILE).write_text(DEEP_OBJECT)
    v = agent.grade(job, tmp_path / "work", tmp_path / "out.txt", IsolationConfig(), None)
    assert v.outcome == "wrong" and "not a JSON object" in v.detail


def test_a_deep_breakdown_reply_loses_its_way_the_items_not_the_run(tmp_path):
    from sandbox.chatwork.breakdown_oracle import BreakdownPersona

    class DeepBatch(BreakdownPersona):
        def respond(self, conv):
            found = self.answers.find(conv.first_user_text)
            return Reply(DEEP_OBJECT) if found and found[0] == "prompt" else super().respond(conv)

    # the whole job: the scripted server knows a prompt of every item, not of a --limit slice
    with ScriptedServer(DeepBatch("oracle"), port=0) as srv:
        assert main(["breakdown", str(tmp_path / "out.json"), "--url", srv.url, "--agent-runs", "0",
                     "--only", "invoices", "--runs", str(tmp_path / "runs"),
                     "--work", str(tmp_path / "work"), "--db", str(tmp_path / "b.duckdb")]) == 0
    f = json.loads((tmp_path / "out.json").read_text())["jobs"]["invoices"]
    assert f["ways"]["prompt"]["accuracy"] == 0.0 and f["ways"]["item"]["accuracy"] == 1.0
    assert f["winner"] == "item"
    n = len(next(j for j in BreakdownBatch().jobs if j.id == "invoices").items)
    _, rows = ResultsStore(tmp_path / "b.duckdb").query("SELECT way, count(*) FROM breakdown_answers GROUP BY ALL")
    assert dict(rows) == {"prompt": n, "item": n}
    [batch] = records_of(next((tmp_path / "runs").glob("*-prompt")))
    assert batch.result()["outcome"] == "wrong" and batch.files()["reply.txt"] == DEEP_OBJECT
