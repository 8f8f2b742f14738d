"""Scoring the capability suite as klbench does, from stored rows (capability_results and the agent categories'
gradings), per model:

- an item's recorded score is the median of its runs (3 by default); a run that timed out scores 0; a run the
  judge has not graded (`pending`) or failed on (`judge_failed`) is left out, and an item with no graded run is
  listed as not graded; the runs the judge failed on are counted apart, the judge's failing and never the model's;
- refusals: an item is a refusal when most of its graded runs declined; refusals are counted, left out of the
  composite, and 0 in usability;
- composite: the equal mean of the category means: every category weighs 1/18 whatever its size (a category whose
  every item was refused or not graded is 0 in the composite when refused, absent when not graded);
- usability: the equal mean over items, timeouts, refusals and runs slower than the latency budget as 0 (the budget
  given to the scoring, else the one each row recorded from its run; none: no run is too slow);
- completion: the share of runs that finished inside the latency budget (all that did not time out when no budget);
- tiers: the composite of the normal items and of the hard ones;
- a 95% bootstrap interval for the composite clustered by category (the items resampled within each category,
  the categories fixed and weighing the same), and the minimum detectable gap: the smallest difference between
  two models' composites the suite resolves at 80% power (two-sided 5%): (1.96 + 0.84) x sqrt(2) x the
  composite's standard error from the same bootstrap;
- difficulty from every model's stored results: an item every model scores 0.95 or more on is saturated.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict

from task_defs.capability.models import CATEGORIES
from task_defs.vocabulary import JUDGE_FAILED

Z_POWER = 1.96 + 0.84
SATURATED = 0.95
BOOTSTRAP = 2000


def item_scores(rows: list[dict], latency_budget_s: float | None = None) -> dict[str, dict]:
    """Per item: category, tier, the runs' scores, the median, refusal, graded runs, runs inside the budget, runs
    the judge failed on."""
    by_item: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_item[r["item"]].append(r)
    out = {}
    for item, runs in by_item.items():
        graded = [r for r in runs if r["outcome"] not in ("pending", JUDGE_FAILED, "skipped", "infra")]
        scores = [0.0 if r["outcome"] == "timeout" else float(r.get("score") or 0.0) for r in graded]
        refused = sum(bool(r.get("refusal")) for r in graded)
        # the budget given here, else the one the run recorded with the row
        budgets = [latency_budget_s if latency_budget_s is not None else r.get("latency_budget_s") for r in graded]
        ok = [r["outcome"] != "timeout" and (b is None or (r.get("duration_s") or 0) <= b)
              for r, b in zip(graded, budgets)]
        # usability counts a reply slower than the budget as 0, as a timeout: correct too late is of no use
        usable = [s if fine else 0.0 for s, fine in zip(scores, ok)]
        out[item] = {"category": runs[0]["category"], "tier": runs[0]["tier"], "runs": len(graded),
                     "scores": scores, "median": statistics.median(scores) if scores else None,
                     "usable": statistics.median(usable) if usable else None, "inside": sum(ok),
                     "refusal": bool(graded) and refused * 2 > len(graded),
                     "timeouts": sum(r["outcome"] == "timeout" for r in graded),
                     "judge_failed": sum(r["outcome"] == JUDGE_FAILED for r in runs)}
    return out


def composite_of(items: dict[str, dict], categories: tuple[str, ...] | None = None) -> float | None:
    """The equal mean of the category means of the graded items that were not refused (a category all refused
    counts 0)."""
    means = []
    for cat in categories or sorted({v["category"] for v in items.values()}):
        graded = [v for v in items.values() if v["category"] == cat and v["median"] is not None]
        if not graded:
            continue
        answered = [v["median"] for v in graded if not v["refusal"]]
        means.append(sum(answered) / len(answered) if answered else 0.0)
    return sum(means) / len(means) if means else None


def _bootstrap(items: dict[str, dict], seed: int = 7) -> tuple[list[float] | None, float | None]:
    """The composite's 95% interval and standard error, resampling the items within each category (categories are
    fixed and weigh the same: what varies between two runs of the suite is which items, and how each went)."""
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for v in items.values():
        if v["median"] is not None:
            by_cat[v["category"]].append(v)
    if not by_cat or min(len(vs) for vs in by_cat.values()) < 2:
        return None, None  # a category of one item has no spread to resample: no interval rather than a false one
    rng = random.Random(seed)
    draws = []
    for _ in range(BOOTSTRAP):
        means = []
        for vs in by_cat.values():
            picked = [rng.choice(vs) for _ in vs]
            answered = [v["median"] for v in picked if not v["refusal"]]
            means.append(sum(answered) / len(answered) if answered else 0.0)
        draws.append(sum(means) / len(means))
    draws.sort()
    lo, hi = draws[int(0.025 * BOOTSTRAP)], draws[int(0.975 * BOOTSTRAP) - 1]
    return [round(lo, 4), round(hi, 4)], statistics.pstdev(draws)


def score_model(rows: list[dict], latency_budget_s: float | None = None) -> dict:
    """One model's figures from its rows (every run of every item)."""
    items = item_scores(rows, latency_budget_s)
    graded = {k: v for k, v in items.items() if v["median"] is not None}
    composite = composite_of(graded)
    usability = (sum(0.0 if v["refusal"] else v["usable"] for v in graded.values()) / len(graded)) if graded else None
    runs = sum(v["runs"] for v in graded.values())
    ci, se = _bootstrap(graded)
    per_cat = {}
    present = {v["category"] for v in graded.values()}
    for cat in [c for c in CATEGORIES if c in present] + sorted(present - set(CATEGORIES)):
        vs = [v for v in graded.values() if v["category"] == cat]
        if vs:
            answered = [v["median"] for v in vs if not v["refusal"]]
            per_cat[cat] = {"items": len(vs), "mean": round(sum(answered) / len(answered), 4) if answered else 0.0,
                            "refusals": sum(v["refusal"] for v in vs)}
    tiers = {t: composite_of({k: v for k, v in graded.items() if v["tier"] == t}) for t in ("normal", "hard")}
    return {"items": len(items), "graded": len(graded), "not_graded": sorted(set(items) - set(graded)),
            "composite": None if composite is None else round(composite, 4), "composite_ci": ci,
            "min_detectable_gap": None if se is None else round(Z_POWER * (2 ** 0.5) * se, 4),
            "usability": None if usability is None else round(usability, 4),
            "completion": round(sum(v["inside"] for v in graded.values()) / runs, 4) if runs else None,
            "refusals": sum(v["refusal"] for v in graded.values()),
            "timeouts": sum(v["timeouts"] for v in graded.values()),
            "judge_failed": sum(v["judge_failed"] for v in items.values()),
            "judge_failed_items": sorted(k for k, v in items.items() if v["judge_failed"]),
            "tiers": {t: None if c is None else round(c, 4) for t, c in tiers.items()},
            "categories": per_cat, "weights": {c: round(1 / len(per_cat), 6) for c in per_cat} if per_cat else {}}


def saturated_items(rows: list[dict]) -> list[str]:
    """Items every model (two at least) scores SATURATED or more on, by median: too easy to tell models apart."""
    per_model: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        per_model[r["model"]].append(r)
    if len(per_model) < 2:
        return []
    medians = [item_scores(rs) for rs in per_model.values()]
    common = set.intersection(*(set(m) for m in medians))
    return sorted(i for i in common if all(m[i]["median"] is not None and m[i]["median"] >= SATURATED
                                           for m in medians))


def rogan_gladen(observed: float, sensitivity: float, specificity: float) -> float:
    """The true share of criteria met, from the share a judge said were met and the judge's sensitivity and
    specificity against human labels: (p + spec - 1) / (sens + spec - 1), kept inside [0, 1]. A judge no better
    than chance (sens + spec <= 1) cannot be corrected."""
    denominator = sensitivity + specificity - 1
    if denominator <= 0:
        raise ValueError(f"a judge with sensitivity {sensitivity:.2f} and specificity {specificity:.2f} is no "
                         "better than chance: its verdicts cannot be corrected")
    return min(1.0, max(0.0, (observed + specificity - 1) / denominator))


def paired_delta(a: dict[str, dict], b: dict[str, dict], seed: int = 13) -> dict | None:
    """Model a minus model b over the items both have graded (item_scores of each): the mean of the per-item
    differences of their medians (a refusal counts 0) and its 95% bootstrap interval over those items."""
    common = sorted(i for i in set(a) & set(b) if a[i]["median"] is not None and b[i]["median"] is not None)
    if len(common) < 2:
        return None
    value = {i: (0.0 if a[i]["refusal"] else a[i]["median"]) - (0.0 if b[i]["refusal"] else b[i]["median"])
             for i in common}
    diffs = [value[i] for i in common]
    rng = random.Random(seed)
    draws = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(BOOTSTRAP))
    return {"mean": sum(diffs) / len(diffs), "ci": [draws[int(0.025 * BOOTSTRAP)], draws[int(0.975 * BOOTSTRAP) - 1]],
            "items": len(common)}


def paired_tiers(ranked: list[dict[str, dict]]) -> list[int]:
    """Statistical tiers down a ranked list of models (each its item_scores): a model shares its tier's number
    while the paired interval against the tier's first model crosses zero (the suite cannot order them); the
    first it is clearly below opens the next tier. Order inside a tier is display order, not a measured gap."""
    tiers, leader, tier = [], None, 0
    for items in ranked:
        d = paired_delta(ranked[leader], items) if leader is not None else None
        if leader is None or (d is not None and d["ci"][0] > 0):
            tier, leader = tier + 1, len(tiers)
        tiers.append(tier)
    return tiers
