"""`kbench compare`: a paired comparison of two runs, condition by condition, as text."""

from __future__ import annotations

from kbench_dagster.reporting import pairwise, stats
from kbench_dagster.reporting.loaders import by_condition
from kbench_dagster.reporting.stats import fmt_pct


def compare(results_a: list[dict], results_b: list[dict], seed: int = 0, mcnemar_seed: int | None = None) -> list[dict]:
    """Paired comparisons, one per condition both runs have."""
    a_by, b_by = by_condition(results_a), by_condition(results_b)
    out = []
    for cond in sorted(set(a_by) & set(b_by)):
        ta, tb = stats.task_table(a_by[cond]), stats.task_table(b_by[cond])
        out.append({"condition": cond, "a": stats.summarize_tasks(ta, breakdowns=False),
                    "b": stats.summarize_tasks(tb, breakdowns=False),
                    **pairwise.paired(ta, tb, seed=seed, mcnemar_seed=mcnemar_seed)})
    return out


def _pts(x: float | None) -> str:
    return "-" if x is None or x != x else f"{100 * x:+.1f}"


def _p3(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def render_compare(name_a: str, name_b: str, comparisons: list[dict]) -> str:
    if not comparisons:
        return f"{name_a} and {name_b} share no condition"
    out = [f"paired comparison: A = {name_a}, B = {name_b} (differences A - B in points; seeds of a task are one "
           "cluster)", ""]
    head = (f"{'condition':10} {'tasks':>5} {'A pass@1':>9} {'B pass@1':>9} {'A-B':>6} {'paired t 95% CI':>16} "
            f"{'p (t)':>7} {'bootstrap 95% CI':>17} {'McNemar p':>9} {'mid-p':>6} {'A/B only':>8} {'min gap':>7}")
    out.append(head)
    for c in comparisons:
        mc = c["mcnemar"] or {}
        ci_t = "-" if c["ci_t"] is None else f"[{_pts(c['ci_t'][0])}, {_pts(c['ci_t'][1])}]"
        ci_b = "-" if c["ci_boot"] is None else f"[{_pts(c['ci_boot'][0])}, {_pts(c['ci_boot'][1])}]"
        p_t = "-" if c["p_t"] is None else f"{c['p_t']:.3f}"
        out.append(f"{c['condition']:10} {c['tasks']:>5} {fmt_pct(c['a']['pass@1']):>9} {fmt_pct(c['b']['pass@1']):>9} "
                   f"{_pts(c['mean_diff']):>6} {ci_t:>16} {p_t:>7} {ci_b:>17} "
                   f"{_p3(mc.get('p_exact')):>9} {_p3(mc.get('p_mid')):>6} "
                   f"{str(mc.get('b', '-')) + '/' + str(mc.get('c', '-')):>8} "
                   f"{'-' if c['mdg'] is None else format(100 * c['mdg'], '.1f'):>7}")
    for c in comparisons:
        if c["tasks"] == 0:
            out += ["", f"{c['condition']}: no task scored in both runs, so there is nothing to compare"]
        elif c["mcnemar_seed"] is None:
            out += ["", f"{c['condition']}: no seed was run on the same task by both, so no McNemar; the t test and "
                        "the bootstrap work on per-task mean differences."]
        else:
            out += ["", f"{c['condition']}: McNemar on seed {c['mcnemar_seed']} only (A passed and B failed / the "
                        "reverse); the t test and the bootstrap work on per-task mean differences."]
        if c.get("tie"):
            out.append(f"  identical outcomes on all {c['tasks']} tasks: a tie")
        elif c["sd_diff"] == 0:
            out.append(f"  every one of the {c['tasks']} tasks moved by {_pts(c['mean_diff'])} pts: no spread, so no "
                       "minimum detectable gap to compare with; the intervals above say how sure that is")
        elif c["mdg"] is not None:
            verdict = ("below the minimum detectable gap: report it as a tie" if c["below_mdg"]
                       else "at or above the minimum detectable gap")
            out.append(f"  minimum detectable gap at power 0.8 over {c['tasks']} tasks: {100 * c['mdg']:.1f} pts; "
                       f"the observed {_pts(c['mean_diff'])} pts is {verdict}")
        if c["only_a"] or c["only_b"]:
            out.append(f"  left out (scored in one run only): A {len(c['only_a'])}, B {len(c['only_b'])} tasks")
        if c["discordant"]:
            out.append("  discordant tasks by category:")
            for cat, d in c["discordant"].items():
                out.append(f"    {cat:12} A better: {', '.join(d['a_better']) or '-'}; "
                           f"B better: {', '.join(d['b_better']) or '-'}")
        else:
            out.append("  no discordant tasks")
    return "\n".join(out)
