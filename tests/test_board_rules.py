"""klbench's ranking rules on the capability boards: Ships ranks share a number when the paired gap is below the
minimum detectable effect at power 0.80, rows of different eras (suite versions) are ranked apart and never
together, and every figure here is checked against arithmetic of the test's own (z from the normal distribution,
the sample standard deviation written out)."""

import math
import re
from statistics import NormalDist

import pytest
from test_boards import CHROMIUM, chromium_dom

from kbench_dagster.reporting import board_capability as bc
from kbench_dagster.reporting.board_rules import min_detectable_effect, ranked_by, shared_ranks
from kbench_dagster.store import ResultsStore

TASKS = [f"t{i}" for i in range(8)]


def by_hand_mde(diffs):
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    return (NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.80)) * sd / math.sqrt(n)


def test_minimum_detectable_effect_and_shared_ranks_by_hand():
    diffs = [0.0] * 7 + [1.0]
    assert min_detectable_effect(diffs) == pytest.approx(by_hand_mde(diffs), rel=1e-12)
    assert by_hand_mde(diffs) == pytest.approx(0.350, abs=1e-3) and min_detectable_effect([0.5]) is None
    top = dict.fromkeys(TASKS, 1.0)
    near = {**top, "t7": 0.0}  # 0.125 below: under the 0.350 these eight tasks can detect
    low = dict.fromkeys(TASKS, 0.0)
    ranks = shared_ranks([top, near, low, dict(low)])
    assert [r["rank"] for r in ranks] == [1, 1, 3, 3]  # competition numbering; equal scores share
    assert [r["shared"] for r in ranks] == [False, True, False, True]
    assert ranks[1]["gap"] == pytest.approx(0.125) and ranks[1]["mde"] == pytest.approx(by_hand_mde(diffs))
    # a gap every task shows (no spread at all) is detected however small
    assert shared_ranks([dict.fromkeys(TASKS, 0.6), dict.fromkeys(TASKS, 0.5)])[1]["rank"] == 2
    assert ranked_by("cpu") == ranked_by("entry-gpu") == "usability" and ranked_by("high-gpu") == "composite"


def _rows(model, fp, passes):
    attempts, gradings = [], []
    for i, task in enumerate(TASKS):
        for seed in (0, 1):
            key = {"run_id": f"r-{model}", "model": model, "condition": "base", "task": task, "seed": seed}
            attempts.append({**key, "agent": "pi", "outcome": "crash", "endpoint": "e", "hardware_class": "mid-gpu",
                             "duration_s": 1.0, "suite_fingerprint": fp})
            gradings.append({**key, "outcome": "pass" if i < passes else "wrong", "suite_fingerprint": fp})
    return {"attempts": attempts, "gradings": gradings}


def _two_eras(tmp_path) -> dict:
    store = ResultsStore(tmp_path / "s.duckdb")
    old, new = "aaaaaaaa-the-older-suite", "bbbbbbbb-the-newer-suite"
    store.replace_partitions({"x": _rows("x-all", old, 8), "z": _rows("z-seven", old, 7),
                              "w": _rows("w-none", old, 0), "y": _rows("y-half", new, 4)})
    return bc.ships_rows(store, agent_tasks={}, kbench=set(TASKS), thinks=[])


def test_ships_ranks_within_each_era_and_shares_numbers_below_the_detectable_gap(tmp_path):
    doc = _two_eras(tmp_path)
    got = [(r["model"], r["era"], r["rank"]) for r in doc["rows"]]
    # the older era first: seven of eight is 0.125 below all eight, under the 0.350 eight tasks can detect: it
    # shares rank 1; none of eight is 0.875 below seven of eight: rank 3. The newer era is ranked on its own.
    assert got == [("x-all", "aaaaaaaa", 1), ("z-seven", "aaaaaaaa", 1), ("w-none", "aaaaaaaa", 3),
                   ("y-half", "bbbbbbbb", 1)]
    z = doc["rows"][1]
    assert z["rank_shared"] and z["gap_above"] == pytest.approx(0.125)
    assert z["mde_above"] == pytest.approx(by_hand_mde([0.0] * 7 + [1.0]))
    page = bc.ships_page(doc)
    assert page.count("data-field='rank' data-value='1'") == 3 and ">=1</span>" in page
    assert "below what 8 tasks can detect (35.0 pts at power 0.80)" in page
    assert "<td class=l>bbbbbbbb</td>" in page


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_shared_ranks_in_headless_chromium(tmp_path):
    (tmp_path / "ships.html").write_text(bc.ships_page(_two_eras(tmp_path)))
    dom = chromium_dom((tmp_path / "ships.html").as_uri(), tmp_path / "profile")
    shown = re.findall(r'data-field="rank" data-value="(\d+)"[^>]*>(=?\d+)</span>', dom)
    assert shown == [("1", "1"), ("1", "=1"), ("3", "3"), ("1", "1")]


def test_usability_counts_a_reply_slower_than_the_runs_budget_as_zero(tmp_path):
    """The budget a capability run was given is kept with each row; Thinks' usability counts a reply slower than it
    as 0 (correct too late), the composite keeps its score, completion drops. By hand on the oracle's replies."""
    from kbench_dagster.cli import main
    from sandbox.servers.scripted import ScriptedServer
    from task_defs.capability.scoring import score_model

    db = tmp_path / "c.duckdb"
    with ScriptedServer("oracle", suite="capability", port=0, latency=0.05) as srv:
        for model, budget in (("in-time", "60"), ("too-slow", "0.001")):
            assert main(["capability", "run", str(tmp_path / f"{model}.json"), "--url", srv.url, "--model", model,
                         "--seeds", "1", "--only", "basic", "--limit", "3", "--run-id", model, "--runs",
                         str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(db),
                         "--latency-budget", budget]) == 0
    store = ResultsStore(db)
    _, budgets = store.query("SELECT model, min(latency_budget_s), max(latency_budget_s), min(duration_s) "
                             "FROM capability_results GROUP BY model ORDER BY model")
    assert budgets[0][:3] == ("in-time", 60.0, 60.0) and budgets[1][:3] == ("too-slow", 0.001, 0.001)
    assert budgets[1][3] > 0.001  # every reply of the second run took longer than its budget
    rows = {r["model"]: r for r in bc.thinks_rows(store, agent_tasks={})}
    assert rows["in-time"]["composite"] == rows["too-slow"]["composite"] == 1.0  # the oracle is right every time
    assert rows["in-time"]["usability"] == 1.0 and rows["too-slow"]["usability"] == 0.0
    assert rows["in-time"]["completion"] == 1.0 and rows["too-slow"]["completion"] == 0.0
    # a budget given to the scoring overrides what the rows recorded
    cols, found = store.query("SELECT item, category, tier, seed, score, outcome, refusal, duration_s, "
                              "latency_budget_s FROM capability_results WHERE model = 'too-slow'")
    assert score_model([dict(zip(cols, r)) for r in found], latency_budget_s=60.0)["usability"] == 1.0
