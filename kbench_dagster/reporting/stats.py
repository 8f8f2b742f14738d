"""The one statistics module: pure functions over result rows, used by the CLI reports, the assets and the boards.

Rows are dicts with the keys of result.json (outcome, task, seed, category, tier, ...). Where a row comes from the
store, its `outcome` is already the current grading. The methods follow Miller, "Adding Error Bars to Evals"
(2024): the seeds of one task are one cluster, so standard errors are clustered by task (or by category where
asked), comparisons between models are paired per task, and the power of a comparison is stated with it.

Everything is built on a *task table*: one entry per task with its scored runs `n`, its passes `c` and a few
counts. The SQL path for big stores (board_data) produces the same table, so the numbers never depend on which
path computed them.

Conventions:
- scored outcomes are pass, wrong, crash, timeout, nofile; `skipped` (a requirement missing) counts nowhere;
  `infra` (the server broke) is excluded from pass rates and reported as attrition.
- pass rates are task-balanced: the mean over tasks of each task's pass share, so a task with more seeds does
  not weigh more. With equal seed counts this equals passed runs / runs.
- bootstrap CIs are seeded: the same rows give the same interval on every rebuild.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from typing import Iterable

import numpy as np


def _sps():
    """scipy.stats, imported on first use: it costs half a second, and most `kbench` commands never need it."""
    from scipy import stats

    return stats


SCORED = ("pass", "wrong", "crash", "timeout", "nofile")
OUTCOMES = ("pass", "wrong", "crash", "timeout", "nofile", "skipped", "infra")
TIERS = ("easy", "medium", "hard", "terminal")
CATEGORIES = ("programming", "repair", "terminal", "chain")
Z95 = 1.959963984540054  # norm.ppf(0.975)
DEFAULT_BOOT = 2000
ATTRITION_LIMIT = 0.05
MIN_SEEDS = 3


# ---------------------------------------------------------------------------------------------- proportions

def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes out of n; (0, 1) when there is nothing to go on."""
    if n <= 0:
        return (0.0, 1.0)
    return wilson_p(k / n, n, z)


def wilson_p(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson interval for an observed share p over n trials (p need not be k/n for an integer k)."""
    if n <= 0:
        return (0.0, 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0))
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    # guard against rounding pushing the estimate a hair outside its own interval
    return (min(lo, p), max(hi, p))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): the chance that at least one of k runs drawn from n passes."""
    if k < 1 or k > n:
        raise ValueError(f"pass@k needs 1 <= k <= n (k={k}, n={n})")
    if n - c < k:
        return 1.0
    # 1 - C(n-c, k) / C(n, k), as a stable product
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: the chance that k runs drawn from n all pass, C(c, k) / C(n, k); with k == n, all seeds pass."""
    if k < 1 or k > n:
        raise ValueError(f"pass^k needs 1 <= k <= n (k={k}, n={n})")
    if c < k:
        return 0.0
    return math.comb(c, k) / math.comb(n, k)


# ---------------------------------------------------------------------------------------------- task tables

def _new_task(task: str, category: str | None, tier: str | None) -> dict:
    return {"task": task, "category": category or "?", "tier": tier or "?", "n": 0, "c": 0, "infra": 0,
            "skipped": 0, "attempts": 0, "usable": 0, "completed": 0, "seeds": {}}


def task_table(rows: Iterable[dict]) -> dict[str, dict]:
    """Per task: n scored runs, c passes, infra failures, attempts (scored + infra), usable passes (inside the
    agent's time budget), completed runs (inside the budget, no infra, no test timeout), and seed -> 0/1."""
    table: dict[str, dict] = {}
    for r in rows:
        t = table.get(r["task"]) or table.setdefault(r["task"], _new_task(r["task"], r.get("category"), r.get("tier")))
        outcome = r["outcome"]
        if outcome == "skipped":
            t["skipped"] += 1
            continue
        t["attempts"] += 1
        if outcome == "infra" or (outcome not in SCORED and r.get("infra")):
            t["infra"] += 1
            continue
        passed = outcome == "pass"
        t["n"] += 1
        t["c"] += passed
        in_time = not r.get("agent_timeout") and outcome != "timeout"
        t["usable"] += passed and not r.get("agent_timeout")
        t["completed"] += in_time
        if r.get("seed") is not None:
            t["seeds"][int(r["seed"])] = int(passed)
    return table


def _scored(tt: dict[str, dict]) -> list[dict]:
    return [t for t in sorted(tt.values(), key=lambda t: t["task"]) if t["n"] > 0]


def balanced_mean(tt: dict[str, dict]) -> float | None:
    """Task-balanced pass rate: the mean over scored tasks of c / n."""
    ts = _scored(tt)
    return sum(t["c"] / t["n"] for t in ts) / len(ts) if ts else None


def clustered_se(tt: dict[str, dict], by: str = "task") -> float | None:
    """Cluster-robust SE of the task-balanced mean (Miller's sandwich form, no small-sample factor).

    Each run carries weight 1/(T n_t); the variance is the sum over clusters of the squared weighted residual
    sums. By task this is sqrt(sum_t (p_t - m)^2) / T; by category the residuals of a category's tasks add up
    before squaring, so correlated tasks in one category widen the interval."""
    ts = _scored(tt)
    if not ts:
        return None
    rates = [t["c"] / t["n"] for t in ts]
    m = sum(rates) / len(ts)
    sums: dict[str, float] = defaultdict(float)
    for t, p in zip(ts, rates):
        sums[t["task"] if by == "task" else t[by]] += p - m
    return math.sqrt(sum(s * s for s in sums.values())) / len(ts)


def naive_se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n > 0 else float("nan")


def bootstrap_ci(tt: dict[str, dict], seed: int = 0, n_boot: int = DEFAULT_BOOT, by: str = "category",
                 level: float = 0.95) -> tuple[float, float] | None:
    """Seeded percentile CI of the task-balanced pass rate, resampling clusters.

    by="category": two stages, categories with replacement, then tasks with replacement inside each drawn
    category (the draws of one category are one cluster). by="task": tasks with replacement."""
    ts = _scored(tt)
    if not ts:
        return None
    rng = np.random.default_rng(seed)
    if by == "task":
        rates = np.array([t["c"] / t["n"] for t in ts])
        idx = rng.integers(0, len(rates), size=(n_boot, len(rates)))
        boots = rates[idx].mean(axis=1)
    else:
        groups: dict[str, list[float]] = defaultdict(list)
        for t in ts:
            groups[t[by]].append(t["c"] / t["n"])
        names = sorted(groups)
        g = len(names)
        pick = rng.integers(0, g, size=(n_boot, g))  # stage 1: which categories each replicate draws
        total = np.zeros(n_boot)
        count = np.zeros(n_boot)
        for gi, name in enumerate(names):
            rates = np.array(groups[name])
            reps = np.nonzero(pick == gi)[0]  # one entry per time a replicate drew this category
            if len(reps) == 0:
                continue
            # stage 2: the category's tasks, drawn with replacement, once per draw of the category
            sums = rates[rng.integers(0, len(rates), size=(len(reps), len(rates)))].sum(axis=1)
            np.add.at(total, reps, sums)
            np.add.at(count, reps, len(rates))
        boots = total / count
    lo, hi = np.quantile(boots, [(1 - level) / 2, 1 - (1 - level) / 2])
    return (float(lo), float(hi))


def _k_default(ts: list[dict]) -> int:
    return min(t["n"] for t in ts) if ts else 1


def pass_k_means(tt: dict[str, dict], k: int | None = None) -> dict:
    """Mean over tasks of unbiased pass@k and of pass^k; tasks with fewer than k scored runs are left out."""
    ts = _scored(tt)
    k = k or _k_default(ts)
    usable = [t for t in ts if t["n"] >= k]
    if not usable:
        return {"k": k, "pass@k": None, "pass^k": None, "tasks": 0, "left_out": len(ts)}
    return {"k": k, "pass@k": sum(pass_at_k(t["n"], t["c"], k) for t in usable) / len(usable),
            "pass^k": sum(pass_hat_k(t["n"], t["c"], k) for t in usable) / len(usable),
            "tasks": len(usable), "left_out": len(ts) - len(usable)}


def usability(tt: dict[str, dict]) -> dict:
    """klbench usability: per-task share of attempts that passed inside the time budget, with every timeout and
    every infra failure counted as 0, averaged over tasks; beside it the completion rate."""
    ts = [t for t in sorted(tt.values(), key=lambda t: t["task"]) if t["attempts"] > 0]
    if not ts:
        return {"usability": None, "completion": None, "tasks": 0}
    use = sum(t["usable"] / t["attempts"] for t in ts) / len(ts)
    comp = sum(t["completed"] / t["attempts"] for t in ts) / len(ts)
    attempts = sum(t["attempts"] for t in ts)
    return {"usability": use, "usability_ci": wilson_p(use, attempts),
            "completion": comp, "completion_ci": wilson_p(comp, attempts), "tasks": len(ts)}


def summarize_tasks(tt: dict[str, dict], k: int | None = None, seed: int = 0, n_boot: int = DEFAULT_BOOT,
                    breakdowns: bool = True) -> dict:
    """Every headline number of one group (a model x agent x condition) from its task table."""
    ts = _scored(tt)
    runs = sum(t["n"] for t in ts)
    passes = sum(t["c"] for t in ts)
    infra = sum(t["infra"] for t in tt.values())
    attempts = sum(t["attempts"] for t in tt.values())
    p1 = balanced_mean(tt)
    any_passed = sum(1 for t in ts if t["c"] > 0)
    out = {
        "tasks": len(ts), "runs": runs, "passes": passes, "infra": infra, "attempts": attempts,
        "skipped": sum(t["skipped"] for t in tt.values()),
        "seeds_min": min((t["n"] for t in ts), default=0), "seeds_max": max((t["n"] for t in ts), default=0),
        "pass@1": p1, "pass@1_ci": wilson_p(p1, runs) if p1 is not None else None,
        "pass_rate_runs": passes / runs if runs else None,
        "se_task": clustered_se(tt, "task"), "se_category": clustered_se(tt, "category"),
        "se_naive": naive_se(p1, runs) if p1 is not None else None,
        "boot_ci": bootstrap_ci(tt, seed=seed, n_boot=n_boot, by="category"),
        "pass_any": any_passed / len(ts) if ts else None, "pass_any_ci": wilson(any_passed, len(ts)) if ts else None,
        "attrition": infra / attempts if attempts else 0.0,
        "attrition_ci": wilson(infra, attempts) if attempts else None,
        **{f"{key}": v for key, v in pass_k_means(tt, k).items() if key in ("k", "pass@k", "pass^k")},
        **usability(tt),
    }
    if breakdowns:
        out["tiers"] = breakdown(tt, "tier")
        out["categories"] = breakdown(tt, "category")
    return out


def summarize(rows: Iterable[dict], **kw) -> dict:
    return summarize_tasks(task_table(rows), **kw)


def breakdown(tt: dict[str, dict], by: str) -> dict[str, dict]:
    """pass@1 (task-balanced, Wilson) per tier or per category."""
    parts: dict[str, dict[str, dict]] = defaultdict(dict)
    for name, t in tt.items():
        parts[t[by]][name] = t
    out = {}
    order = TIERS if by == "tier" else CATEGORIES
    for key in sorted(parts, key=lambda v: (order.index(v) if v in order else len(order), v)):
        sub = parts[key]
        ts = _scored(sub)
        runs = sum(t["n"] for t in ts)
        p = balanced_mean(sub)
        out[key] = {"tasks": len(ts), "runs": runs, "passes": sum(t["c"] for t in ts), "pass@1": p,
                    "pass@1_ci": wilson_p(p, runs) if p is not None else None,
                    "tasks_passed": sum(1 for t in ts if t["c"] > 0)}
    return out


# ---------------------------------------------------------------------------------------------- comparisons

def mcnemar(b: int, c: int) -> dict:
    """Exact McNemar on the discordant counts (b: A passed and B failed; c: the reverse), two-sided, with its
    mid-p (the exact p less the probability of the observed table), which is less conservative."""
    n = b + c
    if n == 0:
        return {"b": b, "c": c, "p_exact": 1.0, "p_mid": 1.0}
    k = min(b, c)
    cdf = float(_sps().binom.cdf(k, n, 0.5))
    pmf = float(_sps().binom.pmf(k, n, 0.5))
    return {"b": b, "c": c, "p_exact": min(1.0, 2 * cdf), "p_mid": min(1.0, 2 * cdf - pmf)}


@functools.lru_cache(maxsize=64)
def _z(q: float) -> float:
    return float(_sps().norm.ppf(q))


@functools.lru_cache(maxsize=1024)
def _t975(df: int) -> float:
    return float(_sps().t.ppf(0.975, df))


def min_detectable_gap(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest true mean difference a paired test over n tasks finds with the given power (two-sided alpha):
    (z_{1-alpha/2} + z_power) * sd / sqrt(n), with sd the SD of the per-task differences."""
    if n < 2 or sd is None or not math.isfinite(sd):
        return None
    return (_z(1 - alpha / 2) + _z(power)) * sd / math.sqrt(n)


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
        half = _t975(n - 1) * se
        ci_t = (mean - half, mean + half)
    else:  # every task moved by the same amount (or one task): no spread to test against
        p_t = 1.0 if mean == 0 else (0.0 if n > 1 else 1.0)
        ci_t = (mean, mean) if n > 1 else (-1.0, 1.0)
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
    crosses = n < 2 or lo <= 0.0 <= hi or ci_t[0] <= 0.0 <= ci_t[1]
    return {**out, "mean_diff": mean, "sd_diff": sd, "p_t": p_t, "ci_t": ci_t, "ci_boot": ci_boot,
            "mdg": mdg, "mcnemar_seed": s,
            "mcnemar": mcnemar(int(b_cnt), int(c_cnt)) if s is not None else None,
            "discordant": {k: v for k, v in sorted(discordant.items())},
            "crosses_zero": crosses,
            "below_mdg": mdg is not None and abs(mean) < mdg}


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
                    "vs_head": None if cmp is None else {k: cmp[k] for k in ("mean_diff", "ci_boot", "ci_t", "p_t", "mdg")}})
    out += [{"name": name, "tier": None, "pass@1": None, "head": None, "vs_head": None, "unranked": "no scored runs"}
            for m, name, tt in sorted(means, key=lambda e: e[1]) if m is None]
    return out


def tier_order(t: dict) -> tuple:
    """Sort key: tiers in order, the unranked last."""
    return (t["tier"] is None, t["tier"] or 0)


# ---------------------------------------------------------------------------------------------- grouping, warnings

def group_rows(rows: Iterable[dict], keys: tuple[str, ...] = ("model", "agent", "condition")) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        out[tuple(r.get(k) for k in keys)].append(r)
    return dict(sorted(out.items(), key=lambda kv: tuple(str(x) for x in kv[0])))


HARNESS_KEYS = ("kbench", "pi", "node", "python_harness", "python_sandbox")


def publishability(rows: list[dict], manifests: list[dict] | None = None) -> list[dict]:
    """Reasons a set of results is not ready to publish (Pythinker's list); empty when there are none."""
    warns: list[dict] = []
    every = list(rows)  # skipped tasks count as done for the plan
    rows = [r for r in every if r["outcome"] != "skipped"]
    if not rows:
        return [{"code": "empty", "message": "no results"}]
    seeds: dict[tuple, set] = defaultdict(set)
    for r in rows:  # a seed counts once it is scored: an infra failure is a seed the task did not get
        got = seeds[(r.get("model"), r.get("agent"), r.get("condition"), r["task"])]
        if r["outcome"] in SCORED:
            got.add(r.get("seed"))
    fewest = min(len(s) for s in seeds.values())
    if fewest < MIN_SEEDS:
        warns.append({"code": "seeds", "message": f"fewer than {MIN_SEEDS} seeds (some task has {fewest})"})
    partial = []
    for m in manifests or []:
        s = m.get("settings", {})
        planned = len(s.get("tasks", [])) * len(s.get("conditions", [])) * (
            len(s["seeds"]) if isinstance(s.get("seeds"), list) else int(s.get("seeds") or 1))
        have = sum(1 for r in every if r.get("run_id") == m.get("run_id"))
        if planned and have < planned:
            partial.append(f"{m.get('run_id')} ({have} of {planned})")
    if manifests is None:  # no plans at hand: a grid with holes is partial
        by_group: dict[tuple, dict[str, int]] = defaultdict(dict)
        for (model, agent, cond, task), s in seeds.items():
            by_group[(model, agent, cond)][task] = len(s)
        all_tasks = {k[3] for k in seeds}
        for g, tasks in by_group.items():
            if len(tasks) < len(all_tasks) or len(set(tasks.values())) > 1:
                partial.append("/".join(str(x) for x in g))
    if partial:
        warns.append({"code": "partial", "message": "partial runs: " + ", ".join(sorted(partial)[:10])
                      + (" ..." if len(partial) > 10 else "")})
    fps = {r.get("suite_fingerprint") for r in rows if r.get("suite_fingerprint")}
    if len(fps) > 1:
        warns.append({"code": "fingerprints", "message": f"mixed suite fingerprints ({len(fps)})"})
    harness: dict[str, set] = defaultdict(set)  # pi and builtin are different harnesses by design
    for m in manifests or []:
        agent = m.get("agent") or (m.get("settings") or {}).get("agent")
        harness[agent].add(tuple((m.get("versions") or {}).get(k) for k in HARNESS_KEYS))
    mixed = sorted(str(a) for a, v in harness.items() if len(v) > 1)
    if mixed:
        warns.append({"code": "harness", "message": f"mixed harness versions under {', '.join(mixed)}"})
    infra = sum(1 for r in rows if r["outcome"] == "infra")
    if infra / len(rows) > ATTRITION_LIMIT:
        warns.append({"code": "attrition", "message": f"attrition {infra / len(rows):.1%} above "
                                                      f"{ATTRITION_LIMIT:.0%} ({infra} infra failures)"})
    kills = sum(int(r.get("watchdog_kills") or 0) for r in rows)
    if kills:
        warns.append({"code": "watchdog", "message": f"{kills} watchdog kills"})
    outside = sum(1 for r in rows if r.get("outside_writes"))
    if outside:
        warns.append({"code": "outside_writes", "message": f"{outside} runs wrote outside the work folder"})
    return warns


def fmt_pct(p: float | None, digits: int = 1) -> str:
    return "-" if p is None else f"{100 * p:.{digits}f}%"


def fmt_ci(ci: tuple[float, float] | None, digits: int = 0) -> str:
    return "" if ci is None else f"[{100 * ci[0]:.{digits}f}, {100 * ci[1]:.{digits}f}]"
