"""The board's text-job and breakdown pages: their numbers equal the SQL (in headless Chromium too), every reply
is one click away, and what a model wrote is escaped."""

import re

import pytest
from test_boards import CHROMIUM, chromium_dom

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_html import pct
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import TextPersona

HOSTILE = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"

# The share of items with full marks per model and job, straight from the table (mean over seeds, then items).
TEXT_TRUTH = """
SELECT model, job, avg(share) FROM (
  SELECT model, job, item, avg(passed::INT) AS share FROM textjob_replies
  WHERE outcome IN ('pass', 'wrong', 'crash', 'timeout', 'nofile') GROUP BY ALL) GROUP BY ALL ORDER BY ALL
"""
WAY_TRUTH = """
SELECT model, job, way, avg(share) FROM (
  SELECT model, job, way, item, avg("right"::INT) AS share FROM breakdown_answers GROUP BY ALL)
GROUP BY ALL ORDER BY ALL
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    root = tmp_path_factory.mktemp("langboard")
    db = root / "l.duckdb"
    common = ["--runs", str(root / "runs"), "--work", str(root / "work"), "--db", str(db)]
    with ScriptedServer(persona="noisy", suite="textjobs", port=0) as srv:
        assert main(["textjobs", str(root / "t.json"), "--url", srv.url, "--limit", "6", *common]) == 0
    with ScriptedServer(persona=TextPersona("hostile-text", HOSTILE), port=0) as srv:
        assert main(["textjobs", str(root / "h.json"), "--url", srv.url, "--only", "tickets", "--limit", "2",
                     *common]) == 0
    with ScriptedServer(persona="noisy", suite="breakdown", port=0) as srv:
        assert main(["breakdown", str(root / "b.json"), "--url", srv.url, "--agent", "builtin",
                     "--only", "invoices,units", *common]) == 0
    store = ResultsStore(db)
    return store, build_board(store, root / "site")


def test_text_job_and_breakdown_pages_show_the_sql_numbers(board):
    store, index = board
    listing = (index.parent / "textjobs.html").read_text()
    for model, job, share in store.query(TEXT_TRUTH)[1]:
        row = re.search(rf">{re.escape(model)}</a></td>(.*?)</tr>", listing).group(1)
        cell = re.search(rf"data-job='{job}'>([^<]+)<", row).group(1)
        assert cell.strip() == pct(share), (model, job)
    text = (index.parent / "breakdown.html").read_text()
    for model, job, way, share in store.query(WAY_TRUTH)[1]:
        section = text.split(f">{model}</a>")[1]
        row = re.search(rf"<td class=l>{job}</td>(.*?)</tr>", section).group(1)
        assert re.search(rf"data-way='{way}'>{re.escape(pct(share))} ", row), (model, job, way)
    assert "<svg class=plot" in text


def test_every_reply_is_one_click_away_and_escaped(board):
    _, index = board
    listing = (index.parent / "textjobs.html").read_text()
    href = re.search(r"href='(textjobs/scripted-hostile-text[^']+)'", listing).group(1)
    model_page = index.parent / href
    reply_href = re.search(r"href='\.\./(textjobs/[^']+)'>tickets\.", model_page.read_text()).group(1)
    reply = (index.parent / reply_href).read_text()
    assert "&lt;script&gt;document.title" in reply and "<script>document" not in reply
    assert "Which team should answer it?" in reply  # the prompt, beside the reply
    model_page = next((index.parent / "breakdown").glob("scripted-noisy-*.html"))
    assert "unknown" in model_page.read_text()
    item_href = re.search(r"href='\.\./(breakdown/items/[^']+)'>inv01<", model_page.read_text()).group(1)
    item_page = (index.parent / item_href).read_text()
    assert "Asked on its own" in item_page and re.search(r"id=key>\d+\.\d\d<", item_page)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (the set-up installs Debian's chromium)")
def test_the_pages_render_the_same_numbers_in_chromium(board, tmp_path):
    store, index = board
    dom = chromium_dom((index.parent / "textjobs.html").as_uri(), tmp_path / "p1")
    for model, job, share in store.query(TEXT_TRUTH)[1]:
        row = re.search(rf">{re.escape(model)}</a></td>(.*?)</tr>", dom).group(1)
        assert re.search(rf'data-job="{job}">{re.escape(pct(share))}', row), (model, job)
    dom = chromium_dom((index.parent / "breakdown.html").as_uri(), tmp_path / "p2")
    for model, job, way, share in store.query(WAY_TRUTH)[1]:
        assert re.search(rf'data-way="{way}">{re.escape(pct(share))} ', dom.split(f">{model}</a>")[1]
                         .split(f">{job}</td>")[1].split("</tr>")[0]), (model, job, way)
    hostile = next((index.parent / "textjobs").glob("scripted-hostile-text*/*.html"))
    dom = chromium_dom(hostile.as_uri(), tmp_path / "p3")
    assert "owned" not in re.search(r"<title>(.*?)</title>", dom).group(1)
