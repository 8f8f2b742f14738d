"""klbench's ranking rules on the capability boards: Ships ranks share a number when the paired gap is below the
minimum detectable effect at power 0.80, rows of different eras (suite versions) are ranked apart and never
together, and every figure here is checked against arithmetic of the test's own (z from the normal distribution,
the sample standard deviation written out)."""

import math
from statistics import NormalDist

import pytest

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


def test_ships_ranks_within_each_era_and_shares_numbers_below_the_detectable_gap(tmp_path):
    store = ResultsStore(tmp_path / "s.duckdb")
    old, new = "aaaaaaaa-the-older-suite", "bbbbbbbb-the-newer-suite"
    store.replace_partitions({"x": _rows("x-all", old, 8), "z": _rows("z-seven", old, 7),
                              "w": _rows("w-none", old, 0), "y": _rows("y-half", new, 4)})
    doc = bc.ships_rows(store, agent_tasks={}, kbench=set(TASKS), thinks=[])
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
