"""The text jobs' figures for one run: per job its family's measures with a 95% interval on the pass rate, and
every item's verdict; `kbench textjobs` writes it as OUT.json (schema/textjobs.schema.json)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting.export import validate_against
from kbench_dagster.reporting.stats import wilson_p
from sandbox.engine.attempt_reader import records_of
from task_defs.textjobs.metrics import HEADLINE, job_figures
from task_defs.vocabulary import SCORED

SCHEMA_ID = "kbench-dagster/textjobs/1"
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "textjobs.schema.json"


def textjobs_document(run_dir: Path, labels: dict[str, list[str]], units: set[str] | None = None,
                      seeds: set[int] | None = None) -> dict:
    """From a run's records (regradings applied), the units and seeds asked for (default: all in the run).
    labels: each classify job's label set, for macro-F1."""
    run_dir = Path(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    results = [r for r in (rec.result() for rec in records_of(run_dir))
               if (units is None or r["task"] in units) and (seeds is None or r["seed"] in seeds)]
    by_job: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_job[r["task"].partition(".")[0]].append(r)
    jobs = {}
    for job, rs in sorted(by_job.items()):
        scored = [r for r in rs if r["outcome"] in SCORED and r.get("textjob")]
        family = rs[0]["tier"]
        fig = job_figures(family, [r["textjob"] for r in scored], labels.get(job))
        per_item: dict[str, list[bool]] = defaultdict(list)
        for r in scored:
            per_item[r["task"]].append(r["outcome"] == "pass")
        shares = [sum(v) / len(v) for v in per_item.values()]
        p = sum(shares) / len(shares) if shares else None
        # items are the unit of the interval (seeds of one item are not independent draws)
        fig["pass_rate_ci"] = list(wilson_p(p, len(shares))) if shares else None
        jobs[job] = {"family": family, "items": len(per_item), "headline": HEADLINE[family],
                     "unscored": sum(r["outcome"] not in SCORED for r in rs), **fig}
    s = manifest["settings"]
    return {
        "schema": SCHEMA_ID, "run_id": manifest["run_id"], "model": s["model"], "url": s["url"],
        "suite_fingerprint": manifest["suite"]["fingerprint"], "created": manifest.get("created"),
        "seeds": s["seeds"], "jobs": jobs,
        "items": [{"job": r["task"].partition(".")[0], "item": r["task"].partition(".")[2], "seed": r["seed"],
                   "outcome": r["outcome"], "parse": (r.get("textjob") or {}).get("parse"),
                   "score": (r.get("textjob") or {}).get("score")}
                  for r in sorted(results, key=lambda r: (r["task"], r["seed"]))],
    }


def validate_textjobs(doc: dict) -> None:
    """Raise ValueError when doc does not match its schema in schema/."""
    validate_against(doc, SCHEMA_PATH, "text job figures")
