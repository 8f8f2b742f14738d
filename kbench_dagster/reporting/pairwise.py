"""Paired comparisons between two groups of results (models, runs), and the statistical tiers built on them.

Both sides are task tables from stats.task_table; see stats.py for the methods (Miller 2024) and the conventions.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict

from kbench_dagster.reporting.stats import DEFAULT_BOOT, balanced_mean


def _sps():
    """scipy.stats, imported on first use: it costs half a second, and most `kbench` commands never need it."""
    from scipy import stats

    return stats


def mcnemar(b: int, c: int) -> dict:
    """Exact McNemar on the discordant counts (b: A passed and B failed; c: the reverse), two-sided, with its
    mid-p, which is less conservative: 2 * (P(X <= min) - P(X = min) / 2), and where b == c (the observed table is
    the distribution's centre, counted once) 1 - P(X = b) / 2 (Fagerland, Lydersen and Laake 2013)."""
    n = b + c
    if n == 0:
        return {"b": b, "c": c, "p_exact": 1.0, "p_mid": 1.0}
    k = min(b, c)
    cdf = float(_sps().binom.cdf(k, n, 0.5))
    pmf = float(_sps().binom.pmf(k, n, 0.5))
    mid = 1.0 - pmf / 2 if b == c else 2 * cdf - pmf
    return {"b": b, "c": c, "p_exact": min(1.0, 2 * cdf), "p_mid": min(1.0, mid)}


@functools.lru_cache(maxsize=1024)
def _t(q: float, df: int) -> float:
    return float(_sps().t.ppf(q, df))


def min_detectable_gap(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest true mean difference a paired t test over n tasks finds with the given power (two-sided alpha):
    (t_{1-alpha/2, n-1} + t_{power, n-1}) * sd / sqrt(n), with sd the SD of the per-task differences. t, not z:
    at 10 tasks z understates the gap by ~13%. None when there is no spread to scale (sd 0: every task moved by
    the same amount) or fewer than two tasks."""
    if n < 2 or sd is None or not math.isfinite(sd) or sd == 0:
        return None
    return (_t(1 - alpha / 2, n - 1) + _t(power, n - 1)) * sd / math.sqrt(n)


def _mcnemar_seed(a: dict, b: dict, common: list[str]) -> int | None:
    counts: dict[int, int] = defaultdict(int)
    for task in common:
        for s in set(a[task]["seeds"]) & set(b[task]["seeds"]):
            counts[s] += 1
    if not counts:
        return None
    return max(counts, key=lambda s: (counts[s], -s))  # the seed most tasks share; the lowest on a tie


def paired(tt_a: dict[str, dict], tt_b: dict[str, dict], seed: int = 0, n_boot: int = DEFAULT_BOOT,
           mcnemar_seed: int | None = None) -> dict:
    """A vs B on the tasks both scored: per-task mean differences (each task one cluster, however many seeds),
    a paired t over tasks, a seeded task-bootstrap CI of the mean difference, exact McNemar with mid-p on one
    seed's outcomes (never all (task, seed) pairs pooled), discordant tasks by category, and the minimum
    detectable gap at power 0.8."""
    import numpy as np  # imported where used, as scipy is (_stats)

    common = sorted(t for t in tt_a if tt_a[t]["n"] > 0 and t in tt_b and tt_b[t]["n"] > 0)
    diffs = np.array([tt_a[t]["c"] / tt_a[t]["n"] - tt_b[t]["c"] / tt_b[t]["n"] for t in common])
    n = len(common)
    out: dict = {"tasks": n, "only_a": sorted(set(t for t in tt_a if tt_a[t]["n"]) - set(common)),
                 "only_b": sorted(set(t for t in tt_b if tt_b[t]["n"]) - set(common))}
    if n == 0:
        return {**out, "mean_diff": None, "ci_t": None, "ci_boot": None, "p_t": None, "sd_diff": None,
                "mdg": None, "mcnemar": None, "mcnemar_seed": None, "discordant": {}, "crosses_zero": True}
    mean = float(diffs.mean())
    sd = float(diffs.std(ddof=1)) if n > 1 else None
    if n > 1 and sd > 0:
        se = sd / math.sqrt(n)
        p_t = float(2 * _sps().t.sf(abs(mean / se), n - 1))  # the paired t over tasks (one-sample t on the diffs)
        half = _t(0.975, n - 1) * se
        ci_t = (mean - half, mean + half)
    elif n > 1:  # every task moved by the same amount: no spread to test against
        p_t, ci_t = (1.0 if mean == 0 else 0.0), (mean, mean)
    else:  # one task: a t over tasks has no degrees of freedom, so neither a p nor an interval
        p_t, ci_t = None, None
    rng = np.random.default_rng(seed)
    boots = diffs[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    ci_boot = tuple(float(x) for x in np.quantile(boots, [0.025, 0.975]))
    s = mcnemar_seed if mcnemar_seed is not None else _mcnemar_seed(tt_a, tt_b, common)
    b_cnt = c_cnt = shared = 0
    if s is not None:
        for t in common:
            if s in tt_a[t]["seeds"] and s in tt_b[t]["seeds"]:
                pa, pb = tt_a[t]["seeds"][s], tt_b[t]["seeds"][s]
                shared += 1
                b_cnt += pa and not pb
                c_cnt += pb and not pa
    if not shared:  # no task has that seed in both: there is no McNemar table, not an empty one
        s = None
    discordant: dict[str, dict[str, list[str]]] = defaultdict(lambda: {"a_better": [], "b_better": []})
    for t, d in zip(common, diffs):
        if d != 0:
            discordant[tt_a[t]["category"]]["a_better" if d > 0 else "b_better"].append(t)
    lo, hi = ci_boot
    mdg = min_detectable_gap(sd, n) if n > 1 else None
    # Resolved only with two or more tasks and both intervals clear of zero: one task's bootstrap has no width,
    # and a small sample's bootstrap is narrower than it should be.
    crosses = n < 2 or lo <= 0.0 <= hi or ci_t is None or ci_t[0] <= 0.0 <= ci_t[1]
    return {**out, "mean_diff": mean, "sd_diff": sd, "p_t": p_t, "ci_t": ci_t, "ci_boot": ci_boot,
            "mdg": mdg, "mcnemar_seed": s,
            "mcnemar": mcnemar(int(b_cnt), int(c_cnt)) if s is not None else None,
            "discordant": {k: v for k, v in sorted(discordant.items())},
            "crosses_zero": crosses,
            # identical outcomes on every task are a tie, whatever the gap could be
            "tie": n > 0 and bool(np.all(diffs == 0)),
            "below_mdg": (mdg is not None and abs(mean) < mdg) or (n > 0 and bool(np.all(diffs == 0)))}


def statistical_tiers(entries: list[tuple[str, dict[str, dict]]], seed: int = 0,
                      n_boot: int = DEFAULT_BOOT) -> list[dict]:
    """Tiers over models that answered the same tasks: sort by task-balanced pass@1; the best model heads tier 1;
    each next model joins the current tier while its paired comparison with the tier's head is unresolved, else it
    heads a new tier. Rank inside a tier is display order only. A model with no scored runs, or with no task in
    common with the head, gets no tier (tier None and the reason in `unranked`): nothing places it."""
    means = [(balanced_mean(tt), name, tt) for name, tt in entries]
    scored = sorted(((m, name, tt) for m, name, tt in means if m is not None), key=lambda e: (-e[0], e[1]))
    out, tier, head = [], 0, None
    for score, name, tt in scored:
        if head is None:
            tier, head, cmp = 1, (name, tt), None
        else:
            cmp = paired(head[1], tt, seed=seed, n_boot=n_boot)
            if cmp["tasks"] == 0:
                out.append({"name": name, "tier": None, "pass@1": score, "head": head[0], "vs_head": None,
                            "unranked": f"no task in common with {head[0]}"})
                continue
            if not cmp["crosses_zero"]:
                tier, head = tier + 1, (name, tt)
        out.append({"name": name, "tier": tier, "pass@1": score, "head": head[0], "unranked": None,
                    "vs_head": None if cmp is None
                    else {k: cmp[k] for k in ("mean_diff", "ci_boot", "ci_t", "p_t", "mdg")}})
    out += [{"name": name, "tier": None, "pass@1": None, "head": None, "vs_head": None, "unranked": "no scored runs"}
            for m, name, tt in sorted(means, key=lambda e: e[1]) if m is None]
    return out


def tier_order(t: dict) -> tuple:
    """Sort key: tiers in order, the unranked last."""
    return (t["tier"] is None, t["tier"] or 0)
