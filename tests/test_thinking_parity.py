"""Thinking parity (issue 38): --reasoning-effort reaches every request the builtin agent, pi (through kbench's
proxy) and the chat kinds make, the default sends none, every row records the effort asked and whether its replies
showed reasoning, and the board marks "no-think" the model that reasons only when asked, and no other."""

import json
import re
import urllib.request

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_html import slug
from kbench_dagster.reporting.thinking import no_think_models
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

THINKS = ("when_asked", "always", "never")  # one scripted model each: thinks only when asked, always, never


def run(srv: ScriptedServer, tmp, run_id: str, *extra: str, agent: str = "builtin") -> int:
    return main(["run", run_id, "--model", srv.model_id, "--url", srv.url, "--agent", agent, "--conds", "base",
                 "--tasks", "fizz", "--runs", str(tmp / "runs"), "--work", str(tmp / "work"),
                 "--db", str(tmp / "db.duckdb"), *extra])


@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    """Each scripted model's builtin run at the default effort and at medium, with the efforts its server saw."""
    tmp = tmp_path_factory.mktemp("thinking-parity")
    seen = {}
    for thinks in THINKS:
        with ScriptedServer("oracle", port=0, thinks=thinks, model_id=f"thinks-{thinks}") as srv:
            for effort in ("default", "medium"):
                before = len(srv.efforts_seen)
                assert run(srv, tmp, f"{thinks}-{effort}", "--reasoning-effort", effort) == 0
                seen[thinks, effort] = srv.efforts_seen[before:]
    return tmp, seen


def test_the_default_sends_no_effort_and_an_asked_one_reaches_every_builtin_request(panel):
    _, seen = panel
    for thinks in THINKS:
        assert len(seen[thinks, "default"]) >= 2 and set(seen[thinks, "default"]) == {None}, thinks
        assert len(seen[thinks, "medium"]) >= 2 and set(seen[thinks, "medium"]) == {"medium"}, thinks


def test_each_row_records_the_effort_asked_and_whether_the_model_reasoned(panel):
    tmp, _ = panel
    _, rows = ResultsStore(tmp / "db.duckdb").query(
        "SELECT model, reasoning_effort, reasoned, sampling FROM attempts ORDER BY model, reasoning_effort")
    assert rows == [("thinks-always", "default", True, "server default"),
                    ("thinks-always", "medium", True, "reasoning effort medium"),
                    ("thinks-never", "default", False, "server default"),
                    ("thinks-never", "medium", False, "reasoning effort medium"),
                    ("thinks-when_asked", "default", False, "server default"),
                    ("thinks-when_asked", "medium", True, "reasoning effort medium")]
    manifest = json.loads((tmp / "runs" / "when_asked-medium" / "manifest.json").read_text())["settings"]
    assert manifest["reasoning_effort"] == "medium" and "builtin agent" in manifest["reasoning_effort_via"]


def test_a_run_cannot_be_resumed_at_another_effort(tmp_path, capsys):
    """Its rows would mix two ways of asking under one run: refused before any request."""
    with ScriptedServer("oracle", port=0) as srv:
        assert run(srv, tmp_path, "r", "--seeds", "1") == 0
        asked = len(srv.efforts_seen)
        assert run(srv, tmp_path, "r", "--seeds", "2", "--reasoning-effort", "low") == 2
        assert len(srv.efforts_seen) == asked
    assert "started with sampling 'server default', not 'reasoning effort low'" in capsys.readouterr().err


def test_the_board_marks_only_the_model_that_thinks_only_when_asked(panel):
    tmp, _ = panel
    assert main(["board", "--db", str(tmp / "db.duckdb"), "--out", str(tmp / "site")]) == 0
    chip = re.compile(r'<span class="chip"[^>]*>no-think</span>')
    for thinks in THINKS:
        text = (tmp / "site" / "model" / f"{slug('thinks-' + thinks)}.html").read_text()
        assert bool(chip.search(text)) == (thinks == "when_asked"), thinks
        assert ("thinks only when asked" in text) == (thinks == "when_asked"), thinks  # the legend beside the mark
    board = (tmp / "site" / "index.html").read_text()
    marked = re.findall(r'>(thinks-\w+)</a>\s*' + chip.pattern, board)
    assert marked and set(marked) == {"thinks-when_asked"}


def test_the_mark_needs_known_default_rows_without_reasoning_and_asked_rows_with_it(tmp_path):
    """Rows where no reply was read say nothing, and effort "none" asks for no reasoning: neither makes the mark."""
    store = ResultsStore(tmp_path / "db.duckdb")
    row = {"run_id": "r", "condition": "base", "task": "t", "seed": 1, "agent": "builtin", "outcome": "pass"}
    cases = {"marked": [("default", False), ("default", None), ("high", True)],
             "unknown-default": [("default", None), ("high", True)],
             "none-only": [("default", False), ("none", True)],
             "thinks-by-default": [("default", True), ("low", True)]}
    for model, efforts in cases.items():
        store.replace_partition(model, {"attempts": [
            {**row, "model": model, "seed": i, "reasoning_effort": e, "reasoned": r} for i, (e, r) in enumerate(efforts)
        ]})
    assert no_think_models(store) == {"marked"}


@pytest.mark.parametrize("command, suite, table", [
    (["trials", "run"], "trials", "trial_results"),
    (["textjobs"], "textjobs", "textjob_replies"),
])
def test_the_chat_kinds_ask_the_effort_on_every_request_and_record_it(tmp_path, command, suite, table):
    db = tmp_path / "db.duckdb"
    common = ["--limit", "1", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(db)]
    with ScriptedServer("oracle", suite=suite, port=0, thinks="when_asked") as srv:
        assert main([*command, str(tmp_path / "plain.json"), "--url", srv.url, "--run-id", "plain", *common]) == 0
        plain = list(srv.efforts_seen)
        assert main([*command, str(tmp_path / "low.json"), "--url", srv.url, "--run-id", "low",
                     "--reasoning-effort", "low", *common]) == 0
        low = srv.efforts_seen[len(plain):]
    assert plain and set(plain) == {None}
    assert low and set(low) == {"low"}
    _, rows = ResultsStore(db).query(f"SELECT DISTINCT run_id, reasoning_effort, reasoned FROM {table} ORDER BY 1")
    assert rows == [("low", "low", True), ("plain", "default", False)]


def test_pi_gets_the_effort_through_kbenchs_proxy_and_the_run_says_so(tmp_path, capsys):
    """pi's model settings send no reasoning_effort to these servers: the proxy adds it to each of pi's requests,
    the run's start and manifest say so, and pi's thinking parts tell whether the model reasoned."""
    with ScriptedServer("oracle", port=0, thinks="when_asked") as srv:
        assert run(srv, tmp_path, "pi-default", agent="pi") == 0
        plain = list(srv.efforts_seen)
        assert run(srv, tmp_path, "pi-high", "--reasoning-effort", "high", agent="pi") == 0
        high = srv.efforts_seen[len(plain):]
    assert plain and set(plain) == {None}
    assert len(high) >= 2 and set(high) == {"high"}
    assert "reasoning effort high: added by kbench's proxy to every request pi makes" in capsys.readouterr().err
    _, rows = ResultsStore(tmp_path / "db.duckdb").query(
        "SELECT run_id, reasoning_effort, reasoned FROM attempts ORDER BY run_id")
    assert rows == [("pi-default", "default", False), ("pi-high", "high", True)]
    manifest = json.loads((tmp_path / "runs" / "pi-high" / "manifest.json").read_text())["settings"]
    assert "proxy" in manifest["reasoning_effort_via"]


def _ask(srv: ScriptedServer, **fields) -> dict:
    body = json.dumps({"model": srv.model_id, "messages": [{"role": "user", "content": "hi"}], **fields}).encode()
    req = urllib.request.Request(f"{srv.url}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)


def test_the_scripted_server_reasons_as_its_setting_says():
    with ScriptedServer("null", port=0, thinks="when_asked") as srv:
        asked, unasked, none = _ask(srv, reasoning_effort="low"), _ask(srv), _ask(srv, reasoning_effort="none")
    assert asked["choices"][0]["message"]["reasoning_content"]
    assert asked["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
    for reply in (unasked, none):
        assert "reasoning_content" not in reply["choices"][0]["message"]
        assert "completion_tokens_details" not in reply["usage"]
    with ScriptedServer("null", port=0, thinks="always") as srv:
        assert _ask(srv)["choices"][0]["message"]["reasoning_content"]
    with pytest.raises(ValueError, match="thinks"):
        ScriptedServer("null", thinks="sometimes")
