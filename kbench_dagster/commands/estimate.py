"""`kbench estimate`: what a planned run will cost in time and tokens (and money, given prices), asking no model.

The basis, said per task and in the summary: the same model's past attempts of the same task on the same server
(endpoint name or URL) when the store has them; otherwise the medians of every stored attempt of that task's
tier, any model (a rough guide, said as such). The spread is the 10th to 90th percentile of the attempts used.
Attempts under the planned conditions are preferred. Attempts run `--workers` at a time, so the wall time is the
sum over attempts divided by the workers.
"""

from __future__ import annotations

import statistics
import sys

from kbench_dagster.parquet_store import open_store
from kbench_dagster.store import DEFAULT_DB, ResultsStore
from task_defs.loader import load_suite, select

PAST_SQL = """
SELECT task, condition, wall_s, input_tokens, output_tokens FROM attempts
WHERE model = ? AND (endpoint = ? OR server_url = ?) AND NOT infra AND wall_s IS NOT NULL
"""
TIER_SQL = "SELECT tier, wall_s, input_tokens, output_tokens FROM attempts WHERE NOT infra AND wall_s IS NOT NULL"


def _spread(values: list[float]) -> list[float]:
    """[10th percentile, median, 90th percentile]."""
    if len(values) == 1:
        return [values[0]] * 3
    cuts = statistics.quantiles(values, n=10, method="inclusive")
    return [cuts[0], statistics.median(values), cuts[-1]]


def _figures(rows: list[tuple]) -> dict:
    return {"n": len(rows), "wall": _spread([r[0] for r in rows]),
            "in": statistics.median(r[1] or 0 for r in rows), "out": statistics.median(r[2] or 0 for r in rows)}


def estimate(store: ResultsStore, model: str, where: str, tasks: list, conds: list[str], seeds: int) -> dict:
    """Per task: its basis and figures; in all: wall seconds of one worker (p10, p50, p90) and tokens. Past
    attempts under the planned conditions are preferred; a task run only under others uses those."""
    _, past = store.query(PAST_SQL, [model, where, where])
    _, tiers = store.query(TIER_SQL)
    runs_per_task = len(conds) * seeds
    under_planned = {task for task, cond, *_ in past if cond in conds}
    by_task: dict[str, list[tuple]] = {}
    for task, cond, *fig in past:
        if cond in conds or task not in under_planned:
            by_task.setdefault(task, []).append(tuple(fig))
    by_tier: dict[str, list[tuple]] = {}
    for tier, *fig in tiers:
        by_tier.setdefault(tier, []).append(tuple(fig))
    per_task, missing = {}, []
    for t in tasks:
        if by_task.get(t.id):
            per_task[t.id] = {"basis": "past attempts", **_figures(by_task[t.id])}
        elif by_tier.get(t.tier):
            per_task[t.id] = {"basis": f"{t.tier} tier medians", **_figures(by_tier[t.tier])}
        else:
            missing.append(t.id)
    total = [sum(f["wall"][i] for f in per_task.values()) * runs_per_task for i in range(3)]
    return {"tasks": per_task, "missing": missing, "wall_one_worker": total, "runs_per_task": runs_per_task,
            "tokens_in": sum(f["in"] for f in per_task.values()) * runs_per_task,
            "tokens_out": sum(f["out"] for f in per_task.values()) * runs_per_task,
            "bases": {b: sum(f["basis"] == b for f in per_task.values())
                      for b in sorted({f["basis"] for f in per_task.values()})}}


def cmd_estimate(args) -> int:
    suite = load_suite(args.suite)
    tasks = select(suite, args.tasks)
    conds = [c for c in args.conds.split(",") if c.strip()]
    where = args.endpoint or args.url
    if not where:
        raise ValueError("estimate: say which server the run will use: --endpoint NAME or --url URL")
    doc = estimate(open_store(args.db), args.model, where, tasks, conds, args.seeds)
    if not doc["tasks"]:
        print(f"estimate: the store {args.db} holds no attempts to go on (none of {args.model} at {where}, none of "
              "these tiers); make a small run first", file=sys.stderr)
        return 1
    lo, mid, hi = (w / args.workers for w in doc["wall_one_worker"])
    print(f"{len(tasks)} tasks x {len(conds)} conditions x {args.seeds} seeds = {len(tasks) * len(conds) * args.seeds} "
          f"attempts, {args.workers} at a time, model {args.model} at {where}")
    print(f"wall time: about {mid / 60:.1f} min (10th-90th percentile {lo / 60:.1f}-{hi / 60:.1f} min)")
    print(f"tokens: about {doc['tokens_in']:,.0f} in, {doc['tokens_out']:,.0f} out")
    if args.price_in is not None or args.price_out is not None:
        cost = (doc["tokens_in"] * (args.price_in or 0) + doc["tokens_out"] * (args.price_out or 0)) / 1e6
        print(f"cost: about {cost:.2f} at {args.price_in or 0} in / {args.price_out or 0} out per million tokens")
    print("basis: " + ", ".join(f"{n} task(s) from {b}" for b, n in doc["bases"].items())
          + (f"; no basis for {', '.join(doc['missing'])} (left out)" if doc["missing"] else ""))
    if args.verbose:
        for task, f in doc["tasks"].items():
            print(f"  {task:24} {f['basis']:22} {f['n']:4} attempts  wall {f['wall'][1]:.1f}s "
                  f"({f['wall'][0]:.1f}-{f['wall'][2]:.1f})")
    return 0


def add_estimate_parser(sub) -> None:
    s = sub.add_parser("estimate", help="time, tokens and cost of a planned run, from stored attempts (no model "
                                        "calls)")
    s.add_argument("--model", required=True)
    s.add_argument("--endpoint", help="the endpoint's name (as runs recorded it)")
    s.add_argument("--url", help="the server's URL (as runs recorded it), when no endpoint name was used")
    s.add_argument("--tasks", help="ids, categories or tiers (default: the whole suite)")
    s.add_argument("--conds", default="base")
    s.add_argument("--seeds", type=int, default=1)
    s.add_argument("--workers", type=int, default=1)
    s.add_argument("--price-in", type=float, help="price per million input tokens")
    s.add_argument("--price-out", type=float, help="price per million output tokens")
    s.add_argument("--db", default=str(DEFAULT_DB))
    s.add_argument("--verbose", action="store_true", help="every task's basis and figures")
    s.set_defaults(func=cmd_estimate)
