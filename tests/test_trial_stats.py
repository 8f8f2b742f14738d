"""trial_stats: the numbers of a tool-use strike, checked against values worked out by hand."""

import pytest

from kbench_dagster.reporting.trial_stats import (
    cause_group,
    compare_strikes,
    render_compare,
    render_stats,
    render_triage,
    strike_stats,
    triage,
)


def row(trial, sample, outcome, family="A", grade="easy", shape=None, score=None, cause=None):
    return {"trial": trial, "family": family, "grade": grade, "shape": shape or trial, "sample": sample,
            "outcome": outcome, "score": score, "cause": cause}


def strike():
    """t1 2/3, t2 1/3 (one shape with t1), t3 3/3 plus one infra, t4 0/3, t5 only infra."""
    return [
        row("t1", 1, "pass", "A", "easy", "s1"), row("t1", 2, "pass", "A", "easy", "s1"),
        row("t1", 3, "wrong", "A", "easy", "s1"),
        row("t2", 1, "wrong", "A", "medium", "s1"), row("t2", 2, "wrong", "A", "medium", "s1"),
        row("t2", 3, "pass", "A", "medium", "s1"),
        row("t3", 1, "pass", "B", "hard", "s2"), row("t3", 2, "pass", "B", "hard", "s2"),
        row("t3", 3, "pass", "B", "hard", "s2"), row("t3", 4, "infra", "B", "hard", "s2"),
        row("t4", 1, "wrong", "B", "hard", "s3", score=0.5), row("t4", 2, "crash", "B", "hard", "s3"),
        row("t4", 3, "timeout", "B", "hard", "s3"),
        row("t5", 1, "infra", "B", "easy", "s4"),
    ]


def test_pass_at_1_and_counts():
    o = strike_stats(strike())["overall"]
    # (2/3 + 1/3 + 1 + 0) / 4; t5 has no scored sample, so it is no trial
    assert o["pass_at_1"] == pytest.approx(0.5)
    assert (o["trials"], o["samples"], o["unscored"], o["passes"]) == (4, 12, 2, 6)
    assert o["valid_pass"] == pytest.approx(6 / 12)
    assert o["attrition"] == pytest.approx(2 / 14)


def test_wilson_and_clustered_intervals():
    o = strike_stats(strike())["overall"]
    # Wilson at p = 0.5: n = 4 trials gives 0.1500-0.8500; n = 3 shapes (s1 twice) gives 0.1253-0.8747
    assert o["pass_at_1_ci"] == pytest.approx((0.15004, 0.84996), abs=1e-5)
    assert o["shapes"] == 3
    assert o["clustered_ci"] == pytest.approx((0.12533, 0.87467), abs=1e-5)
    lo, hi = o["clustered_ci"]
    assert lo <= o["pass_at_1_ci"][0] and hi >= o["pass_at_1_ci"][1]
    assert hi - lo > o["pass_at_1_ci"][1] - o["pass_at_1_ci"][0]


def test_clustered_n_is_distinct_shapes_and_never_narrower():
    rows = [row(f"t{i}", 1, "pass" if i % 3 else "wrong", shape=f"s{i % 2}") for i in range(7)]
    o = strike_stats(rows)["overall"]
    assert (o["trials"], o["shapes"]) == (7, 2)
    # every trial its own shape: the clustered interval is the per-trial one
    alone = strike_stats([row(f"t{i}", 1, "pass" if i % 3 else "wrong") for i in range(7)])["overall"]
    assert alone["shapes"] == 7 and alone["clustered_ci"] == alone["pass_at_1_ci"]
    for passes in range(8):
        for shapes in range(1, 8):
            rs = [row(f"t{i}", 1, "pass" if i < passes else "wrong", shape=f"s{i % shapes}") for i in range(7)]
            g = strike_stats(rs)["overall"]
            assert g["shapes"] == shapes
            assert g["clustered_ci"][0] <= g["pass_at_1_ci"][0] and g["clustered_ci"][1] >= g["pass_at_1_ci"][1]


def test_pass_at_k():
    # n = 3, c = 1, k = 2: 1 - C(2, 2) / C(3, 2) = 1 - 1/3
    one = [row("t", 1, "pass"), row("t", 2, "wrong"), row("t", 3, "wrong")]
    assert strike_stats(one, k=2)["overall"]["pass_at_k"] == pytest.approx(2 / 3)
    doc = strike_stats(strike())
    # every scored trial has 3 samples (t3's fourth is infra), so k defaults to 3: only t4 never passed
    assert doc["k"] == 3 and doc["overall"]["pass_at_k"] == pytest.approx(0.75)
    # k = 2: t1 (c=2) 1, t2 (c=1) 2/3, t3 1, t4 0
    assert strike_stats(strike(), k=2)["overall"]["pass_at_k"] == pytest.approx((1 + 2 / 3 + 1) / 4)
    # a trial with fewer than k samples is left out of pass@k, not counted as a failure
    short = strike() + [row("t6", 1, "wrong")]
    o = strike_stats(short, k=3)["overall"]
    assert o["k_trials"] == 4 and o["pass_at_k"] == pytest.approx(0.75)
    assert strike_stats(short)["k"] == 1


def test_weighted_and_mean_score():
    o = strike_stats(strike())["overall"]
    # weights 1 (easy t1), 2 (medium t2), 3, 3 (hard t3, t4): (2/3 + 2/3 + 3 + 0) / 9
    assert o["weighted"] == pytest.approx(13 / 27)
    # None scores: 1 on a pass, 0 otherwise; t4 has 0.5 + 0 + 0 over 3
    assert o["mean_score"] == pytest.approx((2 / 3 + 1 / 3 + 1 + 1 / 6) / 4)


def test_groups():
    doc = strike_stats(strike())
    assert list(doc["families"]) == ["A", "B"]
    assert list(doc["grades"]) == ["easy", "medium", "hard"]
    a, b = doc["families"]["A"], doc["families"]["B"]
    assert (a["trials"], a["shapes"], a["pass_at_1"]) == (2, 1, pytest.approx(0.5))
    assert (b["trials"], b["unscored"], b["pass_at_1"]) == (2, 2, pytest.approx(0.5))
    easy = doc["grades"]["easy"]
    assert (easy["trials"], easy["unscored"], easy["pass_at_1"]) == (1, 1, pytest.approx(2 / 3))


def test_infra_left_out_of_rates_but_counted_as_attrition():
    base = [row("t1", 1, "pass"), row("t1", 2, "wrong"), row("t2", 1, "wrong")]
    noisy = base + [row("t1", 3, "infra"), row("t2", 2, "infra"), row("t2", 3, "skipped"), row("t3", 1, "infra")]
    clean, o = strike_stats(base)["overall"], strike_stats(noisy)["overall"]
    for key in ("trials", "samples", "pass_at_1", "pass_at_1_ci", "clustered_ci", "weighted", "mean_score",
                "valid_pass", "pass_at_k"):
        assert o[key] == clean[key], key
    assert clean["attrition"] == 0.0
    assert (o["unscored"], o["attrition"]) == (4, pytest.approx(4 / 7))
    only_infra = strike_stats([row("t", 1, "infra")])["overall"]
    assert only_infra["trials"] == 0 and only_infra["pass_at_1"] is None and only_infra["attrition"] == 1.0


def test_unknown_outcome_is_refused():
    with pytest.raises(ValueError, match="unknown outcome"):
        strike_stats([row("t", 1, "passed")])


def pair():
    a = [row("t1", 1, "pass", "A"), row("t2", 1, "wrong", "A"), row("t3", 1, "pass", "B"),
         row("t4", 1, "wrong", "B"), row("t5", 1, "infra", "B"), row("t1", 2, "wrong", "A")]
    b = [row("t1", 1, "wrong", "A"), row("t2", 1, "pass", "A"), row("t3", 1, "pass", "B"),
         row("t4", 1, "pass", "B"), row("t5", 1, "pass", "B"), row("t6", 1, "pass", "C")]
    return a, b


def test_compare():
    doc = compare_strikes(*pair())
    # t5 is infra on A's side, so it pairs with nothing; sample 2 of t1 plays no part
    assert (doc["common"], doc["only_a"], doc["only_b"]) == (4, 0, 2)
    assert (doc["b"], doc["c"]) == (1, 2)
    # exact two-sided binomial on 3 discordant pairs, k = 1: 2 * (1 + 3) / 8 = 1; mid-p 1 - 3/8
    assert doc["mcnemar"]["p_exact"] == pytest.approx(1.0)
    assert doc["mcnemar"]["p_mid"] == pytest.approx(0.625)
    assert (doc["pass_at_1_a"], doc["pass_at_1_b"]) == (pytest.approx(0.5), pytest.approx(0.75))
    assert doc["discordant"] == {"A": {"a_only": ["t1"], "b_only": ["t2"]}, "B": {"a_only": [], "b_only": ["t4"]}}
    empty = compare_strikes([], [row("t", 1, "pass")])
    assert empty["common"] == 0 and empty["pass_at_1_a"] is None and empty["mcnemar"]["p_exact"] == 1.0


def triage_rows():
    return [row("a", 1, "wrong", cause="wrong_tool"), row("b", 1, "wrong", cause="wrong_tool"),
            row("c", 1, "wrong", cause="wrong_args"), row("d", 1, "wrong", cause="schema_invalid"),
            row("e", 1, "wrong", cause="wrong_value"), row("f", 1, "timeout"),
            row("g", 1, "wrong", cause="over_budget"), row("h", 1, "crash"), row("i", 1, "wrong", cause="weird"),
            row("j", 1, "wrong", cause="not_json"), row("k", 1, "pass"), row("l", 1, "infra"),
            row("m", 1, "infra"), row("n", 1, "skipped")]


def test_triage():
    doc = triage(triage_rows())
    assert (doc["samples"], doc["failures"], doc["infra"], doc["skipped"]) == (11, 10, 2, 1)
    groups = [(g["group"], g["count"]) for g in doc["groups"]]
    assert groups == [("wrong arguments", 3), ("other", 2), ("over budget", 2), ("wrong tool", 2),
                      ("format error", 1)]
    by = {g["group"]: g for g in doc["groups"]}
    assert by["wrong arguments"]["share"] == pytest.approx(0.3)
    assert by["over budget"]["causes"] == {"over_budget": 1, "timeout": 1}
    assert by["other"]["causes"] == {"crash": 1, "weird": 1}
    assert doc["causes"]["wrong_tool"] == 2 and sum(doc["causes"].values()) == 10
    assert cause_group("wrong", "called_when_not_to") == "wrong channel"
    assert cause_group("wrong", "refused") == "refusal"
    assert cause_group("timeout", "wrong_tool") == "over budget"


def test_render_stats():
    text = render_stats(strike_stats(strike()))
    assert "50.0%" in text and "15.0-85.0%" in text and "12.5-87.5%" in text
    assert "75.0%" in text and "48.1%" in text and "14.3%" in text  # pass@3, weighted 13/27, attrition 2/14
    assert "pass@3" in text and "family A" in text and "grade hard" in text


def test_render_compare():
    text = render_compare(compare_strikes(*pair()), "model-a", "model-b")
    assert "b (A passed, B failed) = 1" in text and "c (B passed, A failed) = 2" in text
    assert "exact p = 1.0000" in text and "mid-p = 0.6250" in text
    assert "only model-a passed (1): t1" in text and "only model-b passed (1): t4" in text
    assert "50.0%" in text and "75.0%" in text


def test_render_triage():
    text = render_triage(triage(triage_rows()))
    lines = text.splitlines()
    assert any(line.split()[:3] == ["wrong", "arguments", "3"] and line.endswith("30.0%") for line in lines)
    assert "provider/infra: 2" in text and "15.4%" in text  # 2 of 13 attempts
    assert "10 failing of 11" in text
