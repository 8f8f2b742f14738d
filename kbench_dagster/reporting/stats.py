"""The statistics of one group of results: pure functions over result rows, used by the CLI reports, the assets and
the boards; comparisons between groups, and the tiers built on them, are in pairwise.py.

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

import math
from collections import Counter, defaultdict
from typing import Iterable

from task_defs.importers.swe import SUITE_PREFIX as SWE_SUITE_PREFIX
from task_defs.vocabulary import CATEGORIES, OUTCOMES, SCORED, TIERS  # noqa: F401 - readers use stats.X

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


def check_k(k) -> int:
    """The k of pass@k and pass^k: a whole number of samples, at least 1. Every caller refuses anything else alike."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k of pass@k is a whole number of samples, at least 1, not {k!r}")
    return k


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): the chance that at least one of k runs drawn from n passes."""
    if check_k(k) > n:
        raise ValueError(f"pass@k needs k <= n (k={k}, n={n})")
    if n - c < k:
        return 1.0
    import numpy as np  # imported where used: a tenth of a second of every command's start otherwise

    # 1 - C(n-c, k) / C(n, k), as a stable product
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: the chance that k runs drawn from n all pass, C(c, k) / C(n, k); with k == n, all seeds pass."""
    if check_k(k) > n:
        raise ValueError(f"pass^k needs k <= n (k={k}, n={n})")
    if c < k:
        return 0.0
    return math.comb(c, k) / math.comb(n, k)


# ---------------------------------------------------------------------------------------------- task tables

def _new_task(task: str, category: str | None, tier: str | None) -> dict:
    return {"task": task, "category": category or "?", "tier": tier or "?", "n": 0, "c": 0, "infra": 0,
            "skipped": 0, "attempts": 0, "usable": 0, "completed": 0, "seeds": {}, "repeats": 0}


def task_table(rows: Iterable[dict]) -> dict[str, dict]:
    """Per task: n scored runs, c passes, infra failures, attempts (scored + infra), usable passes (no agent
    timeout, inside the latency budget), completed runs (the same, no infra, no test timeout), seed -> 0/1, and
    repeats: scored runs of a seed the task already had (each still counts as a run; publishability warns)."""
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
        in_time = not r.get("agent_timeout") and not r.get("over_budget") and outcome != "timeout"
        t["usable"] += passed and not r.get("agent_timeout") and not r.get("over_budget")
        t["completed"] += in_time
        if r.get("seed") is not None:
            t["repeats"] += int(r["seed"]) in t["seeds"]
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
    before squaring, so correlated tasks in one category widen the interval. None with fewer than two clusters
    (one task, or one category): the residuals then sum to zero by construction, which is not a zero SE."""
    ts = _scored(tt)
    rates = [t["c"] / t["n"] for t in ts]
    m = sum(rates) / len(ts) if ts else 0.0
    sums: dict[str, float] = defaultdict(float)
    for t, p in zip(ts, rates):
        sums[t["task"] if by == "task" else t[by]] += p - m
    if len(sums) < 2:  # one cluster has no spread to estimate: undefined, never 0
        return None
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
    import numpy as np

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
    """Mean over tasks of unbiased pass@k and of pass^k; tasks with fewer than k scored runs are left out, and
    counted (`left_out`): the mean is then over fewer tasks than pass@1's."""
    ts = _scored(tt)
    k = check_k(k) if k is not None else _k_default(ts)
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
        **{{"tasks": "pass@k_tasks", "left_out": "pass@k_left_out"}.get(key, key): v
           for key, v in pass_k_means(tt, k).items()},
        "repeated_seeds": sum(t.get("repeats", 0) for t in tt.values()),  # a table from SQL has none
        # usability counts tasks with any attempt; "tasks" above is the scored tasks and must stay so
        **{("usability_tasks" if key == "tasks" else key): v for key, v in usability(tt).items()},
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


# ---------------------------------------------------------------------------------------------- warnings

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
    runs = Counter((r.get("model"), r.get("agent"), r.get("condition"), r["task"], r.get("seed")) for r in rows
                   if r["outcome"] in SCORED and r.get("seed") is not None)
    repeated = sum(n - 1 for n in runs.values() if n > 1)
    if repeated:
        warns.append({"code": "repeated_seeds", "message": f"{repeated} scored runs repeat a (task, seed) already "
                                                           "recorded; each counts as a run of its own"})
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
    swe = sorted({name for name in [*(r.get("kind") for r in rows),
                                    *((m.get("suite") or {}).get("name") for m in manifests or [])]
                  if isinstance(name, str) and name.startswith(SWE_SUITE_PREFIX)})
    if swe:  # its tasks' verification commands ran on this machine, never SWE-bench's harness in its own images
        warns.append({"code": "swe_fixtures", "message": f"a local fixture run of SWE-style tasks ({', '.join(swe)}), "
                      "not a SWE-bench Docker evaluation: its numbers are not comparable with published SWE-bench "
                      "scores"})
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
