"""`kbench capability judge-bias`: the same stored replies judged by each judge of a panel alone, every verdict
stored (table judge_bias), then how far the judges agree and how each one leans per model
(kbench_dagster/reporting/judge_bias.py), the figures the board's judge-bias page shows.

Each judge casts all three votes of an item itself here (a panel of one), so its verdicts are its own; the replies
are the judged items' final replies as the store keeps them, under the current suite's fingerprint."""

from __future__ import annotations

import sys
from datetime import datetime, timezone

from kbench_dagster import service
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting.judge_bias import bias_study, print_study
from sandbox.chatwork.judge import JudgeFailed
from sandbox.chatwork.judge_panel import JudgePanel, model_family
from task_defs.capability.loader import fingerprint, load_categories
from task_defs.capability.models import JudgeGrader

# the latest grading of each judged run that left a reply, refusals aside (a refusal is never judged)
REPLIES = """
SELECT model, COALESCE(endpoint, 'unnamed') AS endpoint, item, category, seed, reply
FROM capability_results
WHERE grader = 'judge' AND suite_fingerprint = ? AND reply IS NOT NULL AND NOT COALESCE(refusal, false)
  AND (CAST(? AS VARCHAR[]) IS NULL OR list_contains(?, model))
QUALIFY row_number() OVER (PARTITION BY model, endpoint, item, seed ORDER BY graded_at DESC NULLS LAST) = 1
ORDER BY model, endpoint, item, seed"""


def judged_items() -> dict:
    return {i.id: i for doc, _ in load_categories() for i in doc.items if isinstance(i.grader, JudgeGrader)}


def verdict_row(judge: JudgePanel, row: dict, item, when: datetime) -> dict:
    """One judge's verdict on one stored reply: its criteria met by the median of its own three votes."""
    member = judge.describe()[0]
    base = {"judge": member["model"], "judge_family": member["family"], "judge_fingerprint": judge.fingerprint,
            "model": row["model"], "model_family": model_family(row["model"]), "endpoint": row["endpoint"],
            "item": row["item"], "category": row["category"], "seed": row["seed"],
            "criteria": len(item.grader.criteria), "suite_fingerprint": fingerprint(), "judged_at": when}
    try:
        checks, _ = judge.grade(item, [row["reply"]])
    except JudgeFailed as exc:  # the judge's failing: kept as such, out of every figure
        return {**base, "outcome": "judge_failed", "met": None, "median": None, "detail": str(exc)[:500]}
    met = [c.passed for c in checks]
    return {**base, "outcome": "judged", "met": sum(met), "median": met, "detail": ""}


def run_judge_bias(args) -> int:
    panel = JudgePanel.from_specs(args.judge, args.judge_family, api_key=service.cli_api_key())
    if panel is None or len(panel.members) < 2:
        print("judge-bias compares judges: give two --judge MODEL@URL at least", file=sys.stderr)
        return 2
    store = open_store(args.db)
    items = judged_items()
    cols, found = store.query(REPLIES, [fingerprint(), args.model, args.model])
    rows = [r for r in (dict(zip(cols, f)) for f in found) if r["item"] in items]
    if args.limit:
        keep = sorted({r["item"] for r in rows})[:args.limit]
        rows = [r for r in rows if r["item"] in keep]
    if not rows:
        print("no judged replies in the store under this suite's fingerprint"
              f"{' for ' + ', '.join(args.model) if args.model else ''}: run `kbench capability run` first",
              file=sys.stderr)
        return 1
    when = datetime.now(timezone.utc).replace(tzinfo=None)
    parts: dict[str, dict[str, list[dict]]] = {}
    bar = Progress(len(rows) * len(panel.members), "judge-bias")
    for member, family in zip(panel.members, panel.families):
        alone = JudgePanel([member], [family])
        for r in rows:
            v = verdict_row(alone, r, items[r["item"]], when)
            key = f"judge-bias/{alone.fingerprint}/{r['model']}/{r['endpoint']}"
            parts.setdefault(key, {"judge_bias": []})["judge_bias"].append(v)
            bar.step(v["outcome"] == "judged")
    stored = store.replace_partitions(parts)
    study = bias_study(store)
    print_study(study)
    print(f"{stored.get('judge_bias', 0)} verdicts in {args.db} (judge_bias); `kbench board` shows them as "
          "judge-bias.html", file=sys.stderr)
    return 0
