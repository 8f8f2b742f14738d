"""The board's tool-use trial pages: their numbers are `kbench trials stats`'s (strike_stats over the rows
strike_rows reads), strikes graded under other rules stay apart, every row links to its evidence, the evidence
holds the request as sent, and whatever a model wrote is escaped."""

import html
import json
import re

import pytest
from test_boards import CHROMIUM, chromium_dom

from kbench_dagster.cli import main
from kbench_dagster.commands.trials_report import strike_rows
from kbench_dagster.reporting.board_html import pct, slug
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.reporting.trial_stats import strike_stats
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.trials import ToolTrials, request_of
from sandbox.servers.scripted import ScriptedServer

HOSTILE = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"
HOSTILE_ARG = "<b>Oslo</b></pre><script>alert(2)</script>"
GONE = "gone_<i>trial</i>"
# a row copied from the good strike with some columns replaced (DuckDB's SELECT * REPLACE keeps the column order)
COPY_SQL = """
INSERT INTO trial_results SELECT * REPLACE (? AS run_id, ? AS trial, ? AS detail, ? AS exchange, ? AS rules)
FROM trial_results WHERE run_id = 'good' AND trial = ? AND seed = 1
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    root = tmp_path_factory.mktemp("trialboard")
    db = root / "t.duckdb"
    for persona, run in (("oracle", "good"), ("null", "bad")):
        with ScriptedServer(persona, suite="trials", port=0) as srv:
            assert main(["trials", "run", str(root / f"{run}.json"), "--url", srv.url, "--only", "select,classify",
                         "--limit", "4", "--samples", "2", "--runs", str(root / "runs"), "--work", str(root / "work"),
                         "--db", str(db), "--run-id", run]) == 0
    store = ResultsStore(db)
    _, [(rules, exchange)] = store.query("SELECT rules, exchange FROM trial_results WHERE run_id = 'good' "
                                       "AND trial = 'select_weather_oslo' AND seed = 1")
    hostile = json.dumps({"mode": "text", "refused_formats": [{"mode": "json_schema", "error": HOSTILE}],
                          "replies": [{"content": HOSTILE, "finish": "tool_calls", "error": None, "tool_calls": [
                              {"id": "c1", "name": "get_weather", "arguments": json.dumps({"city": HOSTILE_ARG})}]},
                                      {"content": "</pre>" + HOSTILE, "tool_calls": [], "finish": "stop"}]})
    with store.connect() as con:
        con.execute(COPY_SQL, ["hostile", "select_weather_oslo", HOSTILE, hostile, rules, "select_weather_oslo"])
        con.execute(COPY_SQL, ["hostile", GONE, HOSTILE, "not json " + HOSTILE, rules, "select_weather_oslo"])
        con.execute(COPY_SQL, ["stale", "select_weather_oslo", "", exchange, "older-rules", "select_weather_oslo"])
    return store, build_board(store, root / "site").parent


def _cell(row: str, field: str, family: str | None = None) -> tuple[float, str, str]:
    """(data-value, the percentage shown, the interval shown) of one figure in a table row."""
    where = rf"<td data-family='{re.escape(family)}'>" if family else "<td>"
    m = re.search(where + rf"<span data-field='{field}' data-value='([^']+)'>([^<]+)</span>"
                  r"(?: <span class=ci>\[([^\]]+)\]</span>)?", row)
    assert m, (field, family, row)
    return float(m.group(1)), m.group(2), m.group(3)


def _shown(g: dict, key: str = "pass_at_1", ci: str = "pass_at_1_ci") -> tuple[float, str, str]:
    return g[key], pct(g[key]), f"{pct(g[ci][0])}, {pct(g[ci][1])}"


def _row(text: str, attrs: str) -> str:
    return re.search(rf"<tr {re.escape(attrs)}[^>]*>(.*?)</tr>", text).group(1)


def test_trials_page_shows_the_numbers_of_strike_stats(board):
    store, site = board
    text = (site / "trials.html").read_text()
    seen = {}
    for run in ("good", "bad"):
        doc = strike_stats(strike_rows(store, run))
        o = doc["overall"]
        row = _row(text, f"data-group='{run}'")
        assert f"<a href='trials/{slug(run)}.html'>{run}</a>" in row
        assert _cell(row, "pass1") == _shown(o)
        assert f"<td> <span class=ci>[{pct(o['clustered_ci'][0])}, {pct(o['clustered_ci'][1])}]</span></td>" in row
        assert _cell(row, "passk")[:2] == (o["pass_at_k"], pct(o["pass_at_k"])) and f"(k={doc['k']})" in row
        assert _cell(row, "weighted")[0] == o["weighted"] and _cell(row, "attrition")[0] == o["attrition"]
        assert f"<td>{o['trials']}</td><td>{o['samples']}</td>" in row
        for family, g in doc["families"].items():
            assert _cell(row, "pass1", family) == _shown(g), (run, family)
        seen[run] = doc["families"]["select"]["pass_at_1"]
    assert seen == {"good": 1.0, "bad": 0.0}  # the comparison above is between strikes that differ


def test_strike_page_per_family_and_grade_equals_strike_stats(board):
    store, site = board
    rows = strike_rows(store, "bad")
    doc = strike_stats(rows)
    text = (site / f"trials/{slug('bad')}.html").read_text()
    for family, g in doc["families"].items():
        row = _row(text, f"data-family='{family}' data-grade=''")
        assert _cell(row, "pass1") == _shown(g) and _cell(row, "passk")[0] == g["pass_at_k"]
        for grade, gg in strike_stats([r for r in rows if r["family"] == family], k=doc["k"])["grades"].items():
            assert _cell(_row(text, f"data-family='{family}' data-grade='{grade}'"), "pass1") == _shown(gg)
    for grade, g in doc["grades"].items():
        assert _cell(_row(text, f"data-family='' data-grade='{grade}'"), "pass1") == _shown(g)
    assert _cell(_row(text, "data-family='' data-grade=''"), "pass1") == _shown(doc["overall"])
    assert "<svg class=plot" in text and "<rect" in text
    assert re.search(r"<td class=l>wrong channel</td><td>16</td><td>100.0%</td>", text)


def test_strikes_under_other_rules_are_listed_apart(board):
    _, site = board
    text = (site / "trials.html").read_text()
    main_table, _, apart = text.partition("<h2>Graded under other rules</h2>")
    assert "data-group='stale'" not in main_table and "data-group='stale'" in apart
    assert "<code>kbench regrade stale</code>" in apart
    assert not (site / f"trials/{slug('stale')}.html").exists()


def test_every_row_links_to_its_evidence_with_the_request_as_sent(board):
    store, site = board
    text = (site / f"trials/{slug('good')}.html").read_text()
    links = re.findall(r"<a href='([^']+\.s\d\.html)'>", text)
    assert len(links) == len(strike_rows(store, "good")) == 16
    assert all((site / "trials" / link).is_file() for link in links)
    _, [(mode, sample)] = store.query("SELECT json_extract_string(exchange, '$.mode'), seed FROM trial_results "
                                      "WHERE run_id = 'good' AND trial = 'classify_intent_alarm_base' AND seed = 2")
    evidence = (site / f"trials/{slug('good')}/{slug('base')}.{slug('classify_intent_alarm_base')}.s2.html").read_text()
    messages, tools, fmt = request_of(ToolTrials().get("classify_intent_alarm_base"), sample, mode)
    sent = json.loads(html.unescape(re.search(r"<pre id=request>(.*?)</pre>", evidence, re.S).group(1)))
    assert sent == {"messages": messages, "tools": tools, "response_format": fmt} and fmt is not None
    assert "<b id=outcome class=pass>pass</b>" in evidence


def test_what_a_model_wrote_is_escaped(board):
    _, site = board
    strike = (site / f"trials/{slug('hostile')}.html").read_text()
    evidence = (site / f"trials/{slug('hostile')}/{slug('base')}.{slug('select_weather_oslo')}.s1.html").read_text()
    gone = (site / f"trials/{slug('hostile')}/{slug('base')}.{slug(GONE)}.s1.html").read_text()
    for text in (strike, evidence, gone):
        assert "<script" not in text and "<img" not in text and "<b>Oslo" not in text and "<i>trial" not in text
    assert html.escape(HOSTILE) in evidence and html.escape(HOSTILE) in strike
    args = re.findall(r"<pre class=args>(.*?)</pre>", evidence, re.S)
    assert [json.loads(html.unescape(a)) for a in args] == [{"city": HOSTILE_ARG}]
    assert evidence.count("<pre class=content>") == 2 and html.escape("</pre>" + HOSTILE) in evidence
    assert "no longer in the suite" in gone and html.escape("not json " + HOSTILE) in gone


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_filters_come_from_the_url(board, tmp_path):
    _, site = board
    dom = chromium_dom((site / "trials.html").as_uri() + "?model=scripted-null&family=select", tmp_path / "p")
    assert re.search(r"<tr data-group=\"good\"[^>]*style=\"display: none;\"", dom)
    assert not re.search(r"<tr data-group=\"bad\"[^>]*style=\"display: none;\"", dom)
    assert re.search(r"<th data-family=\"classify\" style=\"display: none;\"", dom)
    assert '<th data-family="select">' in dom
