"""`kbench report`: a run's tables, its uncertainty lines and the warnings that keep it from being published."""

from __future__ import annotations

from collections import defaultdict

from kbench_dagster.reporting import stats
from kbench_dagster.reporting.loaders import by_condition, mechanics
from kbench_dagster.reporting.stats import OUTCOMES, TIERS, fmt_ci, fmt_pct
from kbench_dagster.terminal import visible


def condition_rows(results: list[dict]) -> list[dict]:
    """One entry per condition: the statistics, the outcomes, the mechanics."""
    rows = []
    for cond, rs in by_condition(results).items():
        summary = stats.summarize(rs)
        rows.append({"condition": cond, **summary,
                     "outcomes": {o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES},
                     "mechanics": mechanics(rs)})
    return rows


def render(run_id: str, results: list[dict], manifest: dict | None = None) -> str:
    """The three tables of `kbench report`, then the uncertainty lines and the publishability warnings."""
    if not results:
        return f"run {run_id}: no finished tasks yet"
    rows = condition_rows(results)
    out = [f"run {run_id}: {len(results)} results, model {results[0]['model']}, agent {results[0]['agent']}", ""]
    out.append(f"{'condition':10} {'runs':>4} {'pass@1 [95% CI]':>20} {'pass-any':>8}  "
               + " ".join(f"{t:>8}" for t in TIERS) + "  " + " ".join(f"{o:>7}" for o in OUTCOMES))
    for r in rows:
        tiers = " ".join(f"{r['tiers'].get(t, {}).get('passes', 0):>3}/{r['tiers'].get(t, {}).get('runs', 0):<4}"
                         for t in TIERS)
        outs = " ".join(f"{r['outcomes'][o]:>7}" for o in OUTCOMES)
        p1 = f"{fmt_pct(r['pass@1'])} {fmt_ci(r['pass@1_ci'])}"
        out.append(f"{r['condition']:10} {r['runs']:>4} {p1:>20} {fmt_pct(r['pass_any']):>8}  {tiers}  {outs}")
    conds = [r["condition"] for r in rows]
    per_task: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for res in results:
        per_task[res["task"]][res["condition"]].append(res["outcome"])
    out += ["", f"{'task':22} " + " ".join(f"{c:>10}" for c in conds)]
    for task in sorted(per_task):
        cells = []
        for c in conds:
            oc = per_task[task].get(c, [])
            scored = [o for o in oc if o in stats.SCORED]
            cells.append(f"{sum(o == 'pass' for o in scored)}/{len(scored)}" if scored else (oc[0] if oc else "-"))
        out.append(f"{task:22} " + " ".join(f"{x:>10}" for x in cells))
    out += ["", f"{'condition':10} {'mean s':>7} {'turns':>6} {'out tok':>8} {'calls':>6} {'native':>6} "
                f"{'text':>5} {'cut-off':>7} {'tool err':>8} {'fmt err':>7} {'false claims':>12} {'agent kills':>11} "
                f"{'test kills':>10} {'outside':>7}"]
    for r in rows:
        m = r["mechanics"]
        out.append(f"{r['condition']:10} {m['mean_time_s']:>7.1f} {m['turns']:>6} {m['output_tokens']:>8} "
                   f"{m['tool_calls']:>6} {m['native_calls']:>6} {m['text_calls']:>5} {m['cutoffs']:>7} "
                   f"{m['tool_errors']:>8} {m['tool_format_errors']:>7} {m['false_claims']:>12} "
                   f"{m['watchdog_kills']:>11} {m['test_kills']:>10} {m['outside_write_runs']:>7}")
    out += ["", "uncertainty (seeds of a task are one cluster; pass rates are task-balanced):"]
    for r in rows:
        se_c = (", category-clustered SE n/a" if r["se_category"] is None
                else f", category-clustered SE {100 * r['se_category']:.1f}")
        se_t = "n/a" if r["se_task"] is None else f"{100 * r['se_task']:.1f} pts"
        out.append(f"  {r['condition']}: pass@1 {fmt_pct(r['pass@1'])}, task-clustered SE "
                   f"{se_t}{se_c}, category bootstrap 95% {fmt_ci(r['boot_ci'])}; "
                   f"pass@{r['k']} {fmt_pct(r['pass@k'])}, pass^{r['k']} {fmt_pct(r['pass^k'])}; usability "
                   f"{fmt_pct(r['usability'])}, completion {fmt_pct(r['completion'])}, attrition "
                   f"{fmt_pct(r['attrition'])} ({r['infra']} infra)")
    infra = sum(r["outcome"] == "infra" for r in results)
    harness = [r for r in results if r.get("harness_error")]
    if infra > len(harness):
        out += ["", f"{infra - len(harness)} infra failures (server unreachable or broken replies) are excluded from "
                    "pass rates and counted as attrition."]
    if harness:
        out += ["", f"{len(harness)} harness errors (kbench itself failed on the attempt, not the model) are "
                    "excluded from pass rates and counted as attrition; the run kept them so they are seen: fix the "
                    "cause, delete those attempts' record folders and run the same command again to redo them:"]
        out += [f"  {r['task']} {r['condition']} s{r['seed']}: {visible(r['harness_error'], layout=False)[:300]}"
                for r in harness[:10]]
    warns = stats.publishability(results, [manifest] if manifest else None)
    if warns:
        out += ["", "not ready to publish:"] + [f"  - {w['message']}" for w in warns]
    return "\n".join(out)
