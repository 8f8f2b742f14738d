"""The statistics module against worked examples checked by hand, and against properties that must always hold."""

import math
import random

import pytest

from kbench_dagster.reporting import pairwise, stats


def rows_for(task_outcomes: dict[str, list[str]], category: dict[str, str] | None = None, **extra) -> list[dict]:
    """Rows from {task: [outcome of seed 1, seed 2, ...]}."""
    out = []
    for task, outcomes in task_outcomes.items():
        for seed, o in enumerate(outcomes, 1):
            out.append({"task": task, "seed": seed, "outcome": o, "category": (category or {}).get(task, "programming"),
                        "tier": "easy", "model": "m", "agent": "builtin", "condition": "base", **extra})
    return out


# ---------------------------------------------------------------------------------------------- worked examples

def test_wilson_known_values():
    # 8 of 10: p = 0.8, z^2 = 3.8415; centre 0.7168, half-width 0.2266 (by hand)
    lo, hi = stats.wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    # 0 of 10: the upper bound is z^2 / (n + z^2) = 3.8415 / 13.8415
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_pass_at_k_and_pass_hat_k_known_values():
    assert stats.pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)        # 1 - C(3,2)/C(5,2)
    assert stats.pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)     # 1 - C(7,5)/C(10,5)
    assert stats.pass_at_k(4, 3, 2) == 1.0                              # fewer failures than k
    assert stats.pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)           # C(2,2)/C(5,2)
    assert stats.pass_hat_k(3, 3, 3) == 1.0 and stats.pass_hat_k(3, 2, 3) == 0.0
    with pytest.raises(ValueError):
        stats.pass_at_k(3, 1, 4)


def test_pass_rates_are_task_balanced_with_unequal_seeds():
    rows = rows_for({"a": ["pass", "pass", "pass"], "b": ["wrong"]})
    s = stats.summarize(rows)
    assert s["pass_rate_runs"] == pytest.approx(3 / 4)
    assert s["pass@1"] == pytest.approx(0.5)  # (1 + 0) / 2: task a does not weigh three times
    assert s["pass@1_ci"][0] <= 0.5 <= s["pass@1_ci"][1]
    assert s["seeds_min"] == 1 and s["seeds_max"] == 3


def test_clustered_se_by_task_and_by_category():
    cats = {"a": "x", "b": "x", "c": "y", "d": "y"}
    rows = rows_for({"a": ["pass", "pass"], "b": ["pass", "pass"], "c": ["wrong", "wrong"], "d": ["wrong", "wrong"]},
                    cats)
    tt = stats.task_table(rows)
    # rates 1, 1, 0, 0; mean 0.5; by task sqrt(4 * 0.25) / 4 = 0.25
    assert stats.clustered_se(tt, "task") == pytest.approx(0.25)
    # by category the residuals add within a category: sqrt(1^2 + (-1)^2) / 4
    assert stats.clustered_se(tt, "category") == pytest.approx(math.sqrt(2) / 4)


def test_clustered_se_equals_millers_formula_with_equal_seeds():
    rng = random.Random(5)
    outcomes = {f"t{i}": [rng.choice(["pass", "wrong"]) for _ in range(3)] for i in range(12)}
    rows = rows_for(outcomes)
    scores = [(r["task"], r["outcome"] == "pass") for r in rows]
    n = len(scores)
    m = sum(s for _, s in scores) / n
    by_task = {}
    for t, s in scores:
        by_task[t] = by_task.get(t, 0.0) + (s - m)
    miller = math.sqrt(sum(v * v for v in by_task.values())) / n  # Var = (1/n^2) sum_c (sum_i (s_ic - m))^2
    assert stats.clustered_se(stats.task_table(rows), "task") == pytest.approx(miller)


def test_mcnemar_known_values_and_symmetry():
    # b=1, c=5, n=6: P(X<=1) = 7/64; exact p = 14/64; mid-p = 14/64 - 6/64
    r = pairwise.mcnemar(1, 5)
    assert r["p_exact"] == pytest.approx(14 / 64) and r["p_mid"] == pytest.approx(8 / 64)
    for b, c in [(0, 7), (3, 9), (4, 4), (12, 2)]:
        assert pairwise.mcnemar(b, c)["p_exact"] == pytest.approx(pairwise.mcnemar(c, b)["p_exact"])
        assert pairwise.mcnemar(b, c)["p_mid"] == pytest.approx(pairwise.mcnemar(c, b)["p_mid"])
    # b == c: the observed table is the centre, counted once: 1 - P(X = 4) / 2 = 1 - 70/256/2 (Fagerland et al. 2013)
    assert pairwise.mcnemar(4, 4)["p_mid"] == pytest.approx(1 - 70 / 512)
    assert pairwise.mcnemar(0, 0) == {"b": 0, "c": 0, "p_exact": 1.0, "p_mid": 1.0}


def test_mcnemar_agrees_with_binomial_sums_by_hand_on_every_small_table():
    """Every table with up to 15 discordant pairs against the binomial sums written out with math.comb."""
    for b in range(16):
        for c in range(16 - b):
            n = b + c
            if n == 0:
                continue
            prob = [math.comb(n, i) / 2 ** n for i in range(n + 1)]
            k = min(b, c)
            exact = min(1.0, 2 * sum(prob[: k + 1]))
            mid = 1 - prob[b] / 2 if b == c else 2 * sum(prob[:k]) + prob[k]
            r = pairwise.mcnemar(b, c)
            assert r["p_exact"] == pytest.approx(exact, abs=1e-12), (b, c)
            assert r["p_mid"] == pytest.approx(mid, abs=1e-12), (b, c)
            assert r["p_mid"] < r["p_exact"] or r["p_exact"] == 1.0 and b != c, (b, c)


def test_a_comparison_over_one_task_has_no_t_interval_and_resolves_nothing(capsys):
    """One task gives the paired t no degrees of freedom: no p and no interval (shown as '-'), never a made-up
    one, and the pair stays unresolved."""
    from kbench_dagster.reporting.compare import render_compare

    a, b = rows_for({"t1": ["pass", "pass"]}), rows_for({"t1": ["wrong", "wrong"]})
    r = pairwise.paired(stats.task_table(a), stats.task_table(b))
    assert r["tasks"] == 1 and r["mean_diff"] == 1.0
    assert r["ci_t"] is None and r["p_t"] is None and r["crosses_zero"]
    row = render_compare("A", "B", [{**r, "condition": "base", "a": {"pass@1": 1.0}, "b": {"pass@1": 0.0}}])
    line = next(ln for ln in row.splitlines() if ln.startswith("base"))
    assert line.split()[5:7] == ["-", "-"], line  # the t interval and its p


def test_paired_t_and_minimum_detectable_gap_known_values():
    # per-task differences 1, 0, 0.5, 0.5 (two seeds each): mean 0.5, sd sqrt(0.5/3) = 0.4082
    a = rows_for({"t1": ["pass", "pass"], "t2": ["wrong", "wrong"], "t3": ["pass", "wrong"], "t4": ["pass", "pass"]})
    b = rows_for({"t1": ["wrong", "wrong"], "t2": ["wrong", "wrong"], "t3": ["wrong", "wrong"],
                  "t4": ["pass", "wrong"]})
    r = pairwise.paired(stats.task_table(a), stats.task_table(b))
    assert r["tasks"] == 4 and r["mean_diff"] == pytest.approx(0.5)
    assert r["sd_diff"] == pytest.approx(math.sqrt(0.5 / 3))
    # t = 0.5 / (0.4082 / 2) = sqrt(6) = 2.449 on 3 df: two-sided p = 0.0917
    assert r["p_t"] == pytest.approx(0.0917, abs=5e-4)
    half = 3.182446 * math.sqrt(0.5 / 3) / 2  # t(0.975, 3) = 3.1824
    assert r["ci_t"][0] == pytest.approx(0.5 - half, abs=1e-4) and r["ci_t"][1] == pytest.approx(0.5 + half, abs=1e-4)
    # t quantiles on n - 1 df, not z: (t(0.975, 3) + t(0.8, 3)) * 0.40825 / sqrt(4) = (3.18245 + 0.97847) * 0.20412
    assert r["mdg"] == pytest.approx(0.84934, abs=1e-4) and r["below_mdg"] and not r["tie"]  # 0.5 < 0.849
    # (t(0.975, 63) + t(0.8, 63)) * 0.4 / 8 = (1.99834 + 0.84736) * 0.05; z would give 0.14008
    assert pairwise.min_detectable_gap(0.4, 64) == pytest.approx(2.845705 * 0.05, abs=1e-5)


def test_identical_outcomes_are_a_tie_never_a_resolved_gap(capsys):
    outcomes = {"t1": ["pass", "wrong"], "t2": ["wrong", "wrong"], "t3": ["pass", "pass"]}
    r = pairwise.paired(stats.task_table(rows_for(outcomes)), stats.task_table(rows_for(outcomes)))
    assert r["mean_diff"] == 0 and r["sd_diff"] == 0 and r["mdg"] is None
    assert r["tie"] and r["below_mdg"] and r["crosses_zero"]
    from kbench_dagster.reporting.compare import render_compare  # noqa: PLC0415 - the text a user reads

    text = render_compare("A", "B", [{"condition": "base", "a": {"pass@1": 0.5}, "b": {"pass@1": 0.5}, **r}])
    assert "a tie" in text and "at or above" not in text


def test_an_undefined_standard_error_is_none_never_zero():
    one_task = stats.task_table(rows_for({"t1": ["pass", "wrong", "pass"]}))
    assert stats.clustered_se(one_task, "task") is None
    one_category = stats.task_table(rows_for({"t1": ["pass"], "t2": ["wrong"]}))  # rows_for: one category
    assert stats.clustered_se(one_category, "category") is None
    assert stats.clustered_se(one_category, "task") == pytest.approx(math.sqrt(0.5) / 2)  # residuals +-0.5
    s = stats.summarize_tasks(one_task)
    assert s["se_task"] is None and s["se_category"] is None


def test_the_scored_task_count_is_not_overwritten_by_usabilitys():
    rows = rows_for({"t1": ["pass"], "t2": ["wrong"]}) + [
        {"task": "t3", "category": "programming", "tier": "easy", "seed": 1, "outcome": "skipped"},
        {"task": "t4", "category": "programming", "tier": "easy", "seed": 1, "outcome": "infra", "infra": True}]
    s = stats.summarize(rows)
    assert s["tasks"] == 2  # scored: t1 and t2; t4 had an attempt (infra) and counts for usability only
    assert s["usability_tasks"] == 3


def test_mcnemar_uses_one_seed_never_the_pooled_pairs():
    # A passes every seed of 6 tasks, B fails every seed: pooling 3 seeds would claim 18 discordant pairs
    a = rows_for({f"t{i}": ["pass"] * 3 for i in range(6)})
    b = rows_for({f"t{i}": ["wrong"] * 3 for i in range(6)})
    r = pairwise.paired(stats.task_table(a), stats.task_table(b))
    assert r["mcnemar_seed"] == 1
    assert (r["mcnemar"]["b"], r["mcnemar"]["c"]) == (6, 0)
    assert r["mcnemar"]["p_exact"] == pytest.approx(2 / 64)
    r2 = pairwise.paired(stats.task_table(a), stats.task_table(b), mcnemar_seed=2)
    assert r2["mcnemar_seed"] == 2 and r2["mcnemar"]["b"] == 6


def test_discordant_tasks_are_grouped_by_category():
    cats = {"p": "programming", "q": "terminal", "r": "terminal"}
    a = rows_for({"p": ["pass"], "q": ["wrong"], "r": ["pass"]}, cats)
    b = rows_for({"p": ["wrong"], "q": ["pass"], "r": ["pass"]}, cats)
    r = pairwise.paired(stats.task_table(a), stats.task_table(b))
    assert r["discordant"] == {"programming": {"a_better": ["p"], "b_better": []},
                               "terminal": {"a_better": [], "b_better": ["q"]}}


def test_statistical_tiers():
    strong = rows_for({f"t{i}": ["pass"] * 3 for i in range(20)})
    weak1 = rows_for({f"t{i}": ["pass" if i % 5 == 0 else "wrong"] * 3 for i in range(20)})
    weak2 = rows_for({f"t{i}": ["pass" if i % 5 == 1 else "wrong"] * 3 for i in range(20)})
    tiers = pairwise.statistical_tiers([("weak2", stats.task_table(weak2)), ("strong", stats.task_table(strong)),
                                     ("weak1", stats.task_table(weak1))])
    assert [(t["name"], t["tier"]) for t in tiers] == [("strong", 1), ("weak1", 2), ("weak2", 2)]
    assert tiers[2]["head"] == "weak1" and tiers[2]["vs_head"]["ci_boot"][0] <= 0 <= tiers[2]["vs_head"]["ci_boot"][1]


def test_usability_counts_timeouts_and_infra_as_zero_and_infra_is_attrition():
    rows = rows_for({"a": ["pass", "pass", "infra", "pass"], "b": ["pass", "timeout", "pass", "pass"]})
    rows[3]["agent_timeout"] = True  # a seed 4 passed, but only after the agent's time ran out
    s = stats.summarize(rows)
    assert s["infra"] == 1 and s["attrition"] == pytest.approx(1 / 8)
    assert s["pass@1"] == pytest.approx((3 / 3 + 3 / 4) / 2)   # infra left out of the pass rate
    assert s["usability"] == pytest.approx((2 / 4 + 3 / 4) / 2)  # infra and the late pass count 0
    assert s["completion"] == pytest.approx((2 / 4 + 3 / 4) / 2)


def test_skipped_counts_nowhere():
    s = stats.summarize(rows_for({"a": ["pass"], "gpuname": ["skipped"]}))
    assert s["tasks"] == 1 and s["pass@1"] == 1.0 and s["skipped"] == 1 and s["attrition"] == 0


def test_pass_k_summary_uses_the_smallest_seed_count():
    s = stats.summarize(rows_for({"a": ["pass", "wrong", "wrong"], "b": ["pass", "pass", "pass"]}))
    assert s["k"] == 3
    assert s["pass@k"] == pytest.approx((1.0 + 1.0) / 2) and s["pass^k"] == pytest.approx((0 + 1) / 2)


def test_pass_k_over_unequal_seeds_counts_the_tasks_it_leaves_out():
    """A task with fewer than k seeds cannot enter an unbiased pass@k: it is left out and counted beside the mean
    (the report's own k is the smallest seed count, which leaves none out); the mean over the rest agrees with
    1 - C(n-c, k) / C(n, k) written out."""
    rows = rows_for({"a": ["pass", "wrong", "wrong"], "b": ["wrong", "wrong", "pass"], "c": ["pass"]})
    s = stats.summarize(rows, k=2)
    assert (s["pass@k_tasks"], s["pass@k_left_out"]) == (2, 1)
    by_hand = 1 - math.comb(2, 2) / math.comb(3, 2)  # one pass in three seeds, for a and for b alike
    assert s["pass@k"] == pytest.approx(by_hand)
    assert s["pass@1"] == pytest.approx((1 / 3 + 1 / 3 + 1) / 3)  # every task: the two are over different sets
    assert (stats.summarize(rows)["k"], stats.summarize(rows)["pass@k_left_out"]) == (1, 0)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "2"])
def test_an_invalid_k_is_refused_alike_everywhere(k):
    """pass@k of one task, the summary's mean, and the trials' strike statistics refuse the same k the same way."""
    from kbench_dagster.reporting.trial_stats import strike_stats

    tt = stats.task_table(rows_for({"a": ["pass", "wrong"]}))
    for call in (lambda: stats.pass_at_k(2, 1, k), lambda: stats.pass_hat_k(2, 1, k),
                 lambda: stats.pass_k_means(tt, k), lambda: strike_stats([], k=k)):
        with pytest.raises(ValueError, match="k of pass@k is a whole number of samples, at least 1"):
            call()


def test_a_seed_recorded_twice_counts_twice_and_is_warned_about():
    rows = rows_for({"a": ["pass", "wrong", "pass"], "b": ["wrong"] * 3})
    again = [dict(rows[0])]  # the same (task, seed) once more, as a second run of it would record
    s = stats.summarize(rows + again)
    assert s["repeated_seeds"] == 1 and s["runs"] == 7
    warns = {w["code"]: w["message"] for w in stats.publishability(rows + again)}
    assert warns["repeated_seeds"].startswith("1 scored runs repeat a (task, seed)")
    assert "repeated_seeds" not in {w["code"] for w in stats.publishability(rows)}


def test_publishability_warnings():
    base = rows_for({"a": ["pass"] * 3, "b": ["wrong"] * 3})
    assert stats.publishability(base) == []
    codes = lambda rows, m=None: {w["code"] for w in stats.publishability(rows, m)}  # noqa: E731
    assert codes(rows_for({"a": ["pass"] * 2})) == {"seeds"}
    assert "partial" in codes(rows_for({"a": ["pass"] * 3, "b": ["pass"] * 4}))
    mixed = [dict(r, suite_fingerprint=f"fp{i % 2}") for i, r in enumerate(base)]
    assert codes(mixed) == {"fingerprints"}
    assert "attrition" in codes(rows_for({"a": ["pass", "pass", "infra"], "b": ["pass"] * 3}))
    assert codes([dict(base[0], watchdog_kills=1)] + base[1:]) == {"watchdog"}
    assert codes([dict(base[0], outside_writes=2)] + base[1:]) == {"outside_writes"}
    manifests = [{"run_id": "r1", "agent": "pi", "versions": {"pi": "0.73.1"},
                  "settings": {"tasks": ["a", "b"], "conditions": [{}], "seeds": 3}},
                 {"run_id": "r2", "agent": "pi", "versions": {"pi": "0.74.0"},
                  "settings": {"tasks": ["a", "b", "c"], "conditions": [{}], "seeds": 3}}]
    rows = [dict(r, run_id="r1") for r in base] + [dict(r, run_id="r2") for r in base]
    # the two runs pooled hold each (task, seed) twice: said as well
    assert codes(rows, manifests) == {"harness", "partial", "repeated_seeds"}


# ---------------------------------------------------------------------------------------------- properties

def test_wilson_bounds_inside_unit_interval_and_contain_the_estimate():
    for n in range(1, 60):
        for k in range(0, n + 1):
            lo, hi = stats.wilson(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
    rng = random.Random(1)
    for _ in range(500):
        p, n = rng.random(), rng.randint(1, 500)
        lo, hi = stats.wilson_p(p, n)
        assert 0.0 <= lo <= p <= hi <= 1.0


def test_pass_at_k_properties():
    for n in range(1, 12):
        for c in range(0, n + 1):
            assert stats.pass_at_k(n, c, 1) == pytest.approx(c / n)
            assert stats.pass_hat_k(n, c, 1) == pytest.approx(c / n)
            values = [stats.pass_at_k(n, c, k) for k in range(1, n + 1)]
            assert all(x <= y + 1e-12 for x, y in zip(values, values[1:]))  # more tries never hurt
            assert all(stats.pass_hat_k(n, c, k) <= stats.pass_at_k(n, c, k) + 1e-12 for k in range(1, n + 1))


def test_bootstrap_is_seeded_and_reproducible():
    rng = random.Random(3)
    cats = {f"t{i}": ["programming", "repair", "terminal", "chain"][i % 4] for i in range(40)}
    rows = rows_for({f"t{i}": [rng.choice(["pass", "wrong"]) for _ in range(3)] for i in range(40)}, cats)
    tt = stats.task_table(rows)
    a = stats.bootstrap_ci(tt, seed=7)
    assert a == stats.bootstrap_ci(tt, seed=7)
    assert any(stats.bootstrap_ci(tt, seed=s, n_boot=200) != a for s in range(8, 14))  # the seed does matter
    p = stats.balanced_mean(tt)
    assert a[0] <= p <= a[1]
    t = stats.bootstrap_ci(tt, seed=7, by="task")
    assert t[0] <= p <= t[1]
    other = rows_for({f"t{i}": ["wrong"] * 3 for i in range(40)}, cats)
    r1 = pairwise.paired(tt, stats.task_table(other), seed=4)
    assert r1 == pairwise.paired(tt, stats.task_table(other), seed=4)


def test_paired_comparison_is_antisymmetric():
    rng = random.Random(9)
    a = rows_for({f"t{i}": [rng.choice(["pass", "wrong"]) for _ in range(3)] for i in range(15)})
    b = rows_for({f"t{i}": [rng.choice(["pass", "wrong"]) for _ in range(3)] for i in range(15)})
    ab = pairwise.paired(stats.task_table(a), stats.task_table(b))
    ba = pairwise.paired(stats.task_table(b), stats.task_table(a))
    assert ab["mean_diff"] == pytest.approx(-ba["mean_diff"])
    assert ab["p_t"] == pytest.approx(ba["p_t"])
    assert ab["mcnemar"]["p_exact"] == pytest.approx(ba["mcnemar"]["p_exact"])
    assert (ab["mcnemar"]["b"], ab["mcnemar"]["c"]) == (ba["mcnemar"]["c"], ba["mcnemar"]["b"])


def test_stats_never_imports_dagster():
    import subprocess
    import sys

    code = ("import sys, kbench_dagster.reporting.stats, kbench_dagster.reporting.commands, "
            "kbench_dagster.reporting.board_pages, kbench_dagster.reporting.board_server; "
            "sys.exit(1 if any(m == 'dagster' or m.startswith('dagster.') for m in sys.modules) else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_tiers_leave_unplaceable_models_unranked_and_one_task_resolves_nothing():
    strong = stats.task_table(rows_for({f"t{i}": ["pass"] * 3 for i in range(10)}))
    stranger = stats.task_table(rows_for({f"x{i}": ["wrong"] * 3 for i in range(10)}))  # no task in common
    broken = stats.task_table(rows_for({f"t{i}": ["infra"] * 3 for i in range(10)}))   # nothing scored
    tiers = {t["name"]: t for t in pairwise.statistical_tiers([("broken", broken), ("stranger", stranger),
                                                             ("strong", strong)])}
    assert tiers["strong"]["tier"] == 1
    assert tiers["stranger"]["tier"] is None and "no task in common" in tiers["stranger"]["unranked"]
    assert tiers["broken"]["tier"] is None and tiers["broken"]["unranked"] == "no scored runs"
    assert sorted(tiers.values(), key=pairwise.tier_order)[0]["name"] == "strong"
    # one common task: A passes it, B fails it. The bootstrap of one value has no width; that is no evidence.
    one_a, one_b = stats.task_table(rows_for({"t": ["pass"]})), stats.task_table(rows_for({"t": ["wrong"]}))
    r = pairwise.paired(one_a, one_b)
    assert r["ci_boot"] == (1.0, 1.0) and r["crosses_zero"] and r["sd_diff"] is None
    ranked = pairwise.statistical_tiers([("a", one_a), ("b", one_b)])
    assert [(t["name"], t["tier"]) for t in ranked] == [("a", 1), ("b", 1)]


def test_mcnemar_on_a_seed_nobody_ran_is_absent_and_seeds_warning_counts_scored_runs_only():
    a = stats.task_table(rows_for({"p": ["pass", "pass"], "q": ["wrong", "pass"]}))
    b = stats.task_table(rows_for({"p": ["wrong", "wrong"], "q": ["wrong", "wrong"]}))
    r = pairwise.paired(a, b, mcnemar_seed=7)
    assert r["mcnemar"] is None and r["mcnemar_seed"] is None
    # every task 3 seeds, but one task lost two of them to infra: it has one scored seed
    rows = rows_for({**{f"t{i}": ["pass", "wrong", "pass"] for i in range(60)}, "t60": ["pass", "infra", "infra"]})
    assert any(w["code"] == "seeds" and "some task has 1" in w["message"] for w in stats.publishability(rows))
