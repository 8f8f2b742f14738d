"""`kbench report RUNID`: read a run's result.json files and print the per-condition and per-task tables."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

OUTCOMES = ["pass", "wrong", "crash", "timeout", "nofile", "skipped", "infra"]
TIERS = ["easy", "medium", "hard", "terminal"]


def load_results(runs_root: Path, run_id: str) -> list[dict]:
    run_dir = Path(runs_root) / run_id
    if not run_dir.is_dir():
        raise ValueError(f"no run {run_id!r} in {runs_root} (see `ls {runs_root}`)")
    return [json.loads(p.read_text()) for p in sorted(run_dir.glob("*/*/s*/result.json"))]


def condition_rows(results: list[dict]) -> list[dict]:
    by_cond: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_cond[r["condition"]].append(r)
    rows = []
    for cond, rs in by_cond.items():
        scored = [r for r in rs if r["outcome"] not in ("skipped", "infra")]
        tasks = {r["task"] for r in scored}
        passed_tasks = {r["task"] for r in scored if r["outcome"] == "pass"}
        row = {
            "condition": cond, "runs": len(scored),
            "pass@1": sum(r["outcome"] == "pass" for r in scored) / len(scored) if scored else 0.0,
            "pass_any": len(passed_tasks) / len(tasks) if tasks else 0.0,
            "outcomes": {o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES},
            "tiers": {t: (sum(r["outcome"] == "pass" for r in scored if r["tier"] == t),
                          sum(1 for r in scored if r["tier"] == t)) for t in TIERS},
            "false_claims": sum(bool(r.get("false_claim")) for r in rs),
            "tool_format_errors": sum(r.get("tool_format_errors", 0) for r in rs),
            "tool_errors": sum(r.get("tool_errors", 0) for r in rs),
            "mean_time_s": sum(r.get("duration_s", 0) for r in rs) / len(rs),
            "turns": sum(r.get("turns", 0) for r in rs),
            "output_tokens": sum(r.get("output_tokens", 0) for r in rs),
            "cutoffs": sum(r.get("cutoffs", 0) for r in rs),
            "kills": sum(r.get("watchdog_kills", 0) for r in rs),
            "outside_write_runs": sum(1 for r in rs if r.get("outside_writes")),
        }
        rows.append(row)
    return sorted(rows, key=lambda r: r["condition"])


def render(run_id: str, results: list[dict]) -> str:
    if not results:
        return f"run {run_id}: no finished tasks yet"
    rows = condition_rows(results)
    out = [f"run {run_id}: {len(results)} results, model {results[0]['model']}, agent {results[0]['agent']}", ""]
    out.append(f"{'condition':10} {'runs':>4} {'pass@1':>7} {'pass-any':>8}  " + " ".join(f"{t:>8}" for t in TIERS)
               + "  " + " ".join(f"{o:>7}" for o in OUTCOMES))
    for r in rows:
        tiers = " ".join(f"{p:>3}/{n:<4}" for p, n in r["tiers"].values())
        outs = " ".join(f"{r['outcomes'][o]:>7}" for o in OUTCOMES)
        out.append(f"{r['condition']:10} {r['runs']:>4} {r['pass@1']:>7.1%} {r['pass_any']:>8.1%}  {tiers}  {outs}")
    out += ["", f"{'condition':10} {'mean s':>7} {'turns':>6} {'out tok':>8} {'cut-off':>7} {'tool err':>8} "
                f"{'fmt err':>7} {'false claims':>12} {'kills':>5} {'outside':>7}"]
    for r in rows:
        out.append(f"{r['condition']:10} {r['mean_time_s']:>7.1f} {r['turns']:>6} {r['output_tokens']:>8} "
                   f"{r['cutoffs']:>7} {r['tool_errors']:>8} {r['tool_format_errors']:>7} {r['false_claims']:>12} "
                   f"{r['kills']:>5} {r['outside_write_runs']:>7}")
    conds = [r["condition"] for r in rows]
    per_task: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for res in results:
        per_task[res["task"]][res["condition"]].append(res["outcome"])
    out += ["", f"{'task':22} " + " ".join(f"{c:>10}" for c in conds)]
    for task in sorted(per_task):
        cells = []
        for c in conds:
            oc = per_task[task].get(c, [])
            scored = [o for o in oc if o not in ("skipped", "infra")]
            cells.append(f"{sum(o == 'pass' for o in scored)}/{len(scored)}" if scored else (oc[0] if oc else "-"))
        out.append(f"{task:22} " + " ".join(f"{x:>10}" for x in cells))
    infra = sum(r["outcome"] == "infra" for r in results)
    if infra:
        out += ["", f"{infra} infra failures (server unreachable or broken replies) are excluded from pass rates."]
    return "\n".join(out)
