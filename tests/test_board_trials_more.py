"""The board's official ranking, trial index, consensus and strike designer pages (board_trials_more.py), and the
token costs per sample: built from synthetic strikes written through the store, measured against a small slice of
the real suite (so each row's evidence page can rebuild its request)."""

import html
import json
import re
import subprocess

import pytest
from test_boards import CHROMIUM, chromium_dom

from kbench_dagster.cli import build_parser
from kbench_dagster.commands.trials_report import strike_rows
from kbench_dagster.reporting import trial_ranks
from kbench_dagster.reporting.board_html import slug
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.reporting.board_trials_more import anchor
from kbench_dagster.reporting.trial_ranks import Suite
from kbench_dagster.reporting.trial_stats import render_tokens, strike_stats, token_stats
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.trial_card import reply_tokens
from sandbox.chatwork.trials import ToolTrials

HOSTILE = "<script>alert('model')</script>"
HOSTILE2 = "<img src=x onerror=alert(2)>"
PARTIAL = "partial<i>x</i>"
# which of the slice's 8 trials each ranked strike passes on its first sample (the second is the opposite)
PASSES = {"strike-a": ("model-a", {0, 1, 2, 3}), "strike-b": ("model-b", {0, 1, 4, 5}),
          "strike-evil": (HOSTILE, {0, 2, 4, 6})}


def _rows(run, model, trials, suite, outcome_of, seeds, tokens=None):
    return {seed: [{"run_id": run, "model": model, "condition": "base", "seed": seed, "trial": t,
                    "family": suite.trials[t][0], "grade": suite.trials[t][1], "shape": t,
                    "outcome": outcome_of(i, seed), "rules": suite.rules, "suite_fingerprint": suite.fingerprint,
                    "graded_at": "2026-01-01 00:00:00", "detail": "", "rounds": 1,
                    **((tokens or {}).get((i, seed)) or {})}
                   for i, t in enumerate(trials)] for seed in seeds}


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    root = tmp_path_factory.mktemp("trialsmore")
    kind = ToolTrials()
    trials = [u.id for f in kind.families[:2] for u in [x for x in kind.units if x.family.id == f.id][:4]]
    suite = Suite("fp-slice", kind.rules, {t: (kind.get(t).family.id, kind.get(t).grade) for t in trials})
    store = ResultsStore(root / "t.duckdb")
    for run, (model, passes) in PASSES.items():
        by_seed = _rows(run, model, trials, suite,
                        lambda i, seed, p=passes: "pass" if (i in p) == (seed == 1) else "wrong", (1, 2))
        for seed, rows in by_seed.items():
            store.replace_partition(f"{run}/base.s{seed}", {"trial_results": rows})
    # the partial strike: its last trial missing, one sample infra; its tokens as a run records them
    tokens = {(i, 1): {"prompt_tokens": 100, "completion_tokens": 10, "unmetered_replies": 0, "unmetered_chars": 0}
              for i in range(7)}
    tokens[(1, 1)] = {"prompt_tokens": 50, "completion_tokens": 0, "unmetered_replies": 1, "unmetered_chars": 10}
    rows = _rows(PARTIAL, HOSTILE2, trials[:7], suite, lambda i, seed: "infra" if i == 6 else "pass", (1,),
                 tokens)[1]
    store.replace_partition(f"{PARTIAL}/base.s1", {"trial_results": rows})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trial_ranks, "current_suite", lambda kind=None: suite)
        site = build_board(store, root / "site").parent
    return store, site, suite


def test_the_pages_exist_and_the_ranking_is_on_top(board):
    _, site, _ = board
    text = (site / "trials.html").read_text()
    for name in ("index", "consensus", "designer"):
        assert (site / f"trials/{name}.html").is_file() and f"href='trials/{name}.html'" in text
    assert text.index("<h2>Official ranking</h2>") < text.index("<h2>Every strike</h2>")
    ranked = re.findall(r"<tr data-rank='(\d+)' data-run='([^']*)'>", text)
    # pass@1 is 1/2 for each (4 of 8 on sample 1, the other 4 on sample 2); weighted and then the id decide
    assert sorted(html.unescape(run) for _, run in ranked) == sorted(PASSES)
    unranked = text[text.index("<table id=unranked>"):]
    assert "partial: 6 of 8 trials have one result for each of the 1 planned samples" in unranked
    assert "unresolved: 1 samples infra or skipped" in unranked


def test_hostile_ids_are_escaped_everywhere(board):
    _, site, _ = board
    pages = [site / "trials.html", *sorted((site / "trials").glob("*.html"))]
    assert len(pages) >= 8  # trials.html, four strikes, the index, consensus and designer
    for path in pages:
        text = path.read_text()
        for bad in (HOSTILE, HOSTILE2, "<i>x</i>"):
            assert bad not in text, (path.name, bad)
    for name in ("trials.html", "trials/consensus.html", "trials/index.html"):
        assert html.escape(HOSTILE) in (site / name).read_text(), name
    assert html.escape(HOSTILE2) in (site / "trials.html").read_text()


def test_consensus_counts_equal_a_direct_count(board):
    store, site, _ = board
    text = (site / "trials/consensus.html").read_text()
    shown = {html.unescape(f): tuple(map(int, n)) for f, *n in re.findall(
        r"<tr data-cfamily='([^']*)'><td class=l>.*?</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>",
        text)}
    runs = "', '".join(PASSES)
    _, got = store.query(f"""
        SELECT coalesce(family, ''), count(*), count(*) FILTER (WHERE p = 3), count(*) FILTER (WHERE p = 0),
               count(*) FILTER (WHERE p BETWEEN 1 AND 2)
        FROM (SELECT trial, any_value(family) AS family, sum((outcome = 'pass')::INT) AS p FROM trial_results
              WHERE run_id IN ('{runs}') AND seed = 1 GROUP BY trial HAVING count(*) = 3)
        GROUP BY ROLLUP (family)""")
    assert shown == {f: tuple(n) for f, *n in got}
    assert shown[""] == (8, 1, 1, 6)  # trial 0 all pass, trial 7 all fail
    # each disagreement row shows every model's verdict on its first sample
    _, firsts = store.query(f"SELECT trial, run_id, outcome FROM trial_results WHERE run_id IN ('{runs}') "
                            "AND seed = 1")
    verdict = {(t, r): "pass" if o == "pass" else "fail" for t, r, o in firsts}
    head = re.search(r"<table id=disagree><tr>(.*?)</tr>", text).group(1)
    order = [html.unescape(r) for r in re.findall(r"<th class=l title='([^']*)'>", head)]
    for trial, cells in re.findall(r"<tr data-trial='([^']*)'>.*?</td><td class=l>[^<]*</td>(.*?)</tr>", text):
        assert re.findall(r"<td class='l (\w+)'>", cells) == [verdict[(html.unescape(trial), r)] for r in order]


def _design(site, cases: list[dict]) -> list[dict]:
    """The designer page's own script, run under node on each case."""
    script = re.search(r"<script>(.*?)</script>", (site / "trials/designer.html").read_text(), re.S).group(1)
    out = subprocess.run(["node", "-e", f"{script}\nconsole.log(JSON.stringify({json.dumps(cases)}.map(kbDesign)))"],
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def _bash_words(command: str) -> list[str]:
    """The words Bash makes of a command line, without running it."""
    assert command.startswith("kbench ")
    res = subprocess.run(["bash", "-c", f"set -- {command[len('kbench '):]}; printf '%s\\0' \"$@\""],
                         capture_output=True, timeout=30, check=True)
    return res.stdout.decode().split("\0")[:-1]


@pytest.mark.parametrize("model", ["it's", "a'b\"c $(touch /tmp/owned) `id` \\", "-dash-first", "'", "''",
                                   "ünï ☃ \\'", "trailing\\"])
def test_the_designer_quotes_for_bash_and_uses_real_options(board, model):
    _, site, suite = board
    [d] = _design(site, [{"url": "http://[::1]:8080/v1", "model": model, "samples": "3", "temperature": "0.2",
                          "seed": "7", "format": "json_object", "families": [suite.families[0]], "limit": "5",
                          "runId": model, "out": "-x.json"}])
    assert d["problems"] == [] and len(d["notes"]) == 2  # a slice: never an official rank
    args = build_parser("trials").parse_args(_bash_words(d["command"]))
    assert (args.model, args.run_id, args.url, args.out) == (model, model, "http://[::1]:8080/v1", "./-x.json")
    assert (args.temperature, args.sampling_seed, args.response_format, args.only, args.limit) == \
        (0.2, 7, "json_object", suite.families[0], 5)
    assert int(args.seeds) == 3


def test_the_designer_builds_a_stratified_sample(board):
    _, site, _ = board
    [d, both] = _design(site, [{"sample": "19"}, {"sample": "3", "limit": "2"}])
    args = build_parser("trials").parse_args(_bash_words(d["command"]))
    assert args.sample == 19 and args.limit is None and len(d["notes"]) == 1
    assert "give --limit or --sample, not both" in both["problems"]


def test_the_designer_refuses_what_cannot_be_copied(board):
    _, site, suite = board
    [bad, plain] = _design(site, [{"url": "http://user:pw@host/v1?key=1", "model": "a\nb", "samples": "0",
                                   "temperature": "-1", "seed": "x", "format": "yaml", "limit": "1.5"},
                                  {"families": suite.families}])
    assert len(bad["problems"]) == 7
    assert plain == {"command": "kbench trials run 'strike.json'", "problems": [], "notes": []}


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_a_trial_deep_link_shows_it_across_strikes(board, tmp_path):
    _, site, suite = board
    trial = list(suite.trials)[7]  # in the three full strikes, not in the partial one
    dom = chromium_dom((site / "trials/index.html").as_uri() + f"?trial={trial}", tmp_path / "p")
    rows = re.findall(r"<tr data-trial=\"([^\"]+)\"[^>]*data-strike=\"([^\"]+)\"[^>]*?( style=\"[^\"]*\")?>", dom)
    shown = sorted(html.unescape(s) for t, s, style in rows if "display: none" not in style)
    assert shown == sorted(PASSES) and all(t == trial for t, _, style in rows if "display: none" not in style)
    assert '<span id="shown">3</span>' in dom
    # each row links to the trial's first row on its strike's page: an anchor there, highlighted as the target
    target = f"{slug('strike-a')}.html#{anchor(trial)}"
    assert f'href="{target}"' in dom
    strike = (site / f"trials/{slug('strike-a')}.html").read_text()
    assert strike.count(f"id='{anchor(trial)}'") == 1 and "tr:target{" in strike


def test_tokens_per_sample(board):
    store, site, _ = board
    events = [{"type": "reply", "content": "abc", "usage": {"prompt_tokens": 7, "completion_tokens": 2}},
              {"type": "reply", "content": "hello", "reasoning": "hm", "usage": None,
               "tool_calls": [{"name": "f", "arguments": "{}"}]},
              {"type": "speed", "usage": {"completion_tokens": 99}}]
    assert reply_tokens(events) == {"prompt_tokens": 7, "completion_tokens": 2, "unmetered_replies": 1,
                                    "unmetered_chars": 10}
    rows = strike_rows(store, PARTIAL)
    t = token_stats(rows)
    # 7 samples: 5 metered (100, 10), one unmetered (50, 10 chars -> 3), one infra (0)
    assert (t["samples"], t["estimated"], t["estimated_tokens"], t["unanswered"]) == (7, 1, 3, 1)
    assert t["prompt_mean"] == pytest.approx(550 / 7) and t["completion_mean"] == pytest.approx(53 / 7)
    assert strike_stats(rows)["tokens"] == t
    page = (site / f"trials/{slug(PARTIAL)}.html").read_text()
    assert html.escape(render_tokens(t)) in page and "1 samples estimated" in page
    assert token_stats(strike_rows(store, "strike-a"))["prompt_mean"] is None  # stored without token columns
