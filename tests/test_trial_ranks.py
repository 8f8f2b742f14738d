"""trial_ranks: which strikes take an official rank, in which order, and why every other one does not; rows and
manifests are written through the store, as a run writes them."""

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting.trial_ranks import Suite, consensus, load_strikes, official_ranks, render_ranks
from kbench_dagster.store import ResultsStore

# weights: a1 easy 1, a2 hard 3, b1 medium 2, b2 easy 1
SUITE = Suite("fp-now", "rules-now", {"a1": ("alpha", "easy"), "a2": ("alpha", "hard"), "b1": ("beta", "medium"),
                                      "b2": ("beta", "easy")})
HOSTILE = "<script>alert('m')</script>\x1b[2J"


def put(store: ResultsStore, run: str, model: str, passes: set, *, seeds=(1,), tasks=None, skip=(), infra=(),
        suite_fp="fp-now", rules="rules-now", created="2026-01-01T00:00:00", manifest=True) -> None:
    """A strike of `model`: each (trial, seed) passes when its trial is in `passes` (or the pair is), is missing
    when in `skip`, infra when in `infra`; stored per cell as a run stores it, with its manifest."""
    for seed in seeds:
        rows = []
        for trial, (family, grade) in SUITE.trials.items():
            if (tasks is not None and trial not in tasks) or (trial, seed) in skip:
                continue
            outcome = ("infra" if (trial, seed) in infra else
                       "pass" if trial in passes or (trial, seed) in passes else "wrong")
            rows.append({"run_id": run, "model": model, "condition": "base", "seed": seed, "trial": trial,
                         "family": family, "grade": grade, "shape": trial, "outcome": outcome,
                         "rules": None if outcome == "infra" else rules, "suite_fingerprint": suite_fp,
                         "graded_at": created, "infra_error": "provider failure" if outcome == "infra" else None})
        store.replace_partition(f"{run}/base.s{seed}", {"trial_results": rows})
    if manifest:
        store.upsert_manifest({"run_id": run, "created": created, "versions": {}, "suite": {"fingerprint": suite_fp},
                               "settings": {"model": model, "agent": "api", "url": "http://127.0.0.1:1/v1",
                                            "tasks": list(tasks if tasks is not None else SUITE.trials),
                                            "seeds": list(seeds), "conditions": [{"name": "base"}]}})


@pytest.fixture
def store(tmp_path):
    return ResultsStore(tmp_path / "t.duckdb")


def ranks(store):
    return official_ranks(load_strikes(store), SUITE)


def reasons(doc, run):
    return next(e["reasons"] for e in doc["excluded"] if e["run_id"] == run)


def test_a_partial_strike_is_excluded_with_its_reason(store):
    put(store, "whole", "m1", {"a1"})
    put(store, "partial", "m2", {"a1"}, seeds=(1, 2), skip={("b2", 2)})
    put(store, "only-alpha", "m3", {"a1"}, tasks={"a1", "a2"})
    put(store, "infra", "m4", {"a1"}, infra={("b1", 1)})
    doc = ranks(store)
    assert [e["run_id"] for e in doc["ranked"]] == ["whole"]
    assert reasons(doc, "partial") == ["partial: 3 of 4 trials have one result for each of the 2 planned samples "
                                       "(1 samples of the suite without a result)"]
    alpha = reasons(doc, "only-alpha")
    assert alpha[0] == "filtered by family: planned alpha (1 of 2 families; the run had --only)"
    assert alpha[1].startswith("partial: 2 of 4 trials")
    infra = reasons(doc, "infra")
    assert infra[0].startswith("partial: 3 of 4 trials") and "1 infra" in infra[0]
    assert infra[1].startswith("unresolved: 1 samples infra or skipped (they disqualify")


def test_a_slice_of_every_family_is_excluded(store):
    put(store, "limited", "m1", {"a1"}, tasks={"a1", "b1"})
    assert reasons(ranks(store), "limited")[0] == ("a slice: 2 of the 4 trials of its families planned (--limit or "
                                                   "--sample)")


def test_stale_rules_and_stale_suite_are_excluded(store):
    put(store, "old-rules", "m1", {"a1"}, rules="rules-old")
    put(store, "old-suite", "m2", {"a1"}, suite_fp="fp-old")
    doc = ranks(store)
    assert doc["ranked"] == []
    assert reasons(doc, "old-rules") == ["stale rules: graded under oracle rules rules-old, this checkout's are "
                                         "rules-now; `kbench regrade old-rules` grades its kept replies again"]
    assert reasons(doc, "old-suite") == ["stale suite fingerprint: made against suite fp-old, this checkout's is "
                                         "fp-now"]


def test_the_newer_of_two_qualifying_strikes_is_kept(store):
    put(store, "b-later", "m1", {"a1"}, created="2026-03-01T00:00:00")
    put(store, "a-earlier", "m1", {"a1", "a2", "b1", "b2"}, created="2026-02-01T00:00:00")
    doc = ranks(store)
    assert [(e["run_id"], e["pass_at_1"]) for e in doc["ranked"]] == [("b-later", 0.25)]
    assert reasons(doc, "a-earlier") == ["a newer qualifying strike of the same model exists: b-later "
                                         "(2026-03-01T00:00:00)"]


def test_order_pass_at_1_then_weighted_then_model_id(store):
    put(store, "r1", "zeta", {"a1", "b2"})  # pass@1 1/2, weighted 2/7
    put(store, "r2", "alpha", {"a1", "b2"})  # the same figures: the id decides
    put(store, "r3", "mid", {"a2", "b1"})  # pass@1 1/2, weighted 5/7
    put(store, "r4", "top", {"a1", "a2", ("b1", 1)}, seeds=(1, 2))  # pass@1 (1 + 1 + 1/2 + 0) / 4
    doc = ranks(store)
    assert [(e["rank"], e["model"]) for e in doc["ranked"]] == [(1, "top"), (2, "mid"), (3, "alpha"), (4, "zeta")]
    by = {e["model"]: e for e in doc["ranked"]}
    assert by["top"]["pass_at_1"] == pytest.approx(5 / 8) and by["mid"]["weighted"] == pytest.approx(5 / 7)
    assert by["alpha"]["weighted"] == by["zeta"]["weighted"] == pytest.approx(2 / 7)
    top2 = official_ranks(load_strikes(store), SUITE, top=2)
    assert [e["model"] for e in top2["ranked"]] == ["top", "mid"]
    assert reasons(top2, "r2") == ["qualifies, rank 3: only the top 2 are shown"]


def test_no_manifest_reads_the_plan_from_the_rows(store):
    put(store, "bare", "m1", {"a1"}, manifest=False)
    doc = ranks(store)
    assert [(e["run_id"], e["plan"]) for e in doc["ranked"]] == [("bare", "rows")]


def test_consensus_over_the_ranked_strikes(store):
    put(store, "r1", "x", {"a1", "a2", ("b1", 2)}, seeds=(1, 2))
    put(store, "r2", "y", {"a1", "b1"}, seeds=(1, 2))
    put(store, "r3", "z", {"a1"}, tasks={"a1"})  # not ranked: plays no part
    c = consensus(ranks(store), SUITE)
    assert [r for r, _ in c["runs"]] == ["r1", "r2"] and c["common"] == 4
    # first sample: a1 both pass, b2 both fail, a2 and b1 split
    assert (c["all_pass"], c["all_fail"]) == (["a1"], ["b2"])
    assert c["disagree"] == [{"trial": "a2", "family": "alpha", "verdicts": {"r1": "pass", "r2": "fail"}},
                             {"trial": "b1", "family": "beta", "verdicts": {"r1": "fail", "r2": "pass"}}]
    assert c["families"] == {"alpha": {"common": 2, "all_pass": 1, "all_fail": 0, "disagree": 1},
                             "beta": {"common": 2, "all_pass": 0, "all_fail": 1, "disagree": 1}}


def test_render_and_the_command(store, capsys):
    put(store, "hostile", HOSTILE, {"a1"})
    put(store, "ok", "m1", {"a1"})
    text = render_ranks(ranks(store))
    assert "\x1b" not in text and "\\x1b[2J" in text  # a control character is shown, never sent to the terminal
    # equal figures: the model ids decide, "<" before "m"
    assert [line.split()[:2] for line in text.splitlines() if line.startswith(("1 ", "2 "))] == [
        ["1", "<script>alert('m')</script>\\x1b[2J"], ["2", "m1"]]
    # the command measures against this checkout's suite: these synthetic strikes are stale there
    assert main(["trials", "ranks", "--db", str(store.path)]) == 0
    out = capsys.readouterr().out
    assert "no strike qualifies" in out and "stale suite fingerprint: made against suite fp-now" in out
    assert "\x1b" not in out and "hostile (<script>alert('m')</script>\\x1b[2J)" in out
