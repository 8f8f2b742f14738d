"""`kbench breakdown OUT.json`: each breakdown job three ways (the agent on a file of the items, one prompt with
every item, one question per item), through the one run loop; per job which way wins, with paired intervals.

Each way is its own run (`breakdown-MODEL-WORDING-WAY`), so the same command resumes all three and a run of the
other wording (`--prompts first`) is found for the prompt-sensitivity figures. Rows go to DuckDB
(breakdown_answers, one per item answer); OUT.json follows schema/breakdown.schema.json.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.commands.endpoints import endpoint_settings
from kbench_dagster.commands.textjobs import add_language_options, model_of_server
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting.breakdown import breakdown_document, validate_breakdown
from kbench_dagster.run_settings import add_run_options, from_args, setting, settings_of
from kbench_dagster.terminal import say
from sandbox.chatwork.breakdown import KINDS, WAYS
from sandbox.engine.spec import API_AGENT
from task_defs.breakdown.jobs import WORDINGS, load_breakdown_jobs


def run_id_of(model: str, wording: str, way: str, limit: int | None = None) -> str:
    """One run per way and wording; a --limit slice is a run of its own (its one prompt holds fewer items)."""
    return f"breakdown-{re.sub(r'[^A-Za-z0-9._@-]+', '-', model)}-{wording}-{way}{f'-limit{limit}' if limit else ''}"


def _jobs(only: str | None, limit: int | None):
    jobs = load_breakdown_jobs()
    names = [n.strip() for n in (only or "").split(",") if n.strip()]
    unknown = [n for n in names if n not in {j.id for j in jobs}]
    if unknown:
        raise ValueError(f"--only: unknown job {', '.join(unknown)}; the jobs are {', '.join(j.id for j in jobs)}")
    if limit is not None and limit < 1:
        raise ValueError("--limit must be a positive number of items per job")
    return [j.model_copy(update={"items": j.items[:limit]}) if limit else j
            for j in jobs if not names or j.id in names]


def cmd_breakdown(args) -> int:
    if args.agent_runs < 0 or args.api_runs < 0 or args.agent_runs + args.api_runs == 0:
        raise ValueError("--agent-runs and --api-runs are counts of repetitions (0 leaves a way out, not both)")
    api_key = service.cli_api_key()
    store = open_store(args.db)
    where = endpoint_settings(args, store)
    model = args.model or model_of_server(where["url"], api_key)
    jobs = _jobs(args.only, args.limit)
    repeats = {"agent": args.agent_runs, "prompt": args.api_runs, "item": args.api_runs}
    runs, other = {}, {}
    for way in WAYS:
        kind = KINDS[way](args.prompts, jobs)
        run_id = run_id_of(model, args.prompts, way, args.limit)
        alt = next(w for w in WORDINGS if w != args.prompts)
        other[way] = Path(setting(args, "runs_root")) / run_id_of(model, alt, way, args.limit)
        if not repeats[way]:
            continue
        settings = settings_of(**from_args(
            args, run_id=run_id, model=model, agent=args.agent if way == "agent" else API_AGENT, suite=kind.name,
            tasks=",".join(u.id for u in kind.units), seeds=repeats[way], **where))
        run = service.plan_run(settings, kind, api_key=api_key)
        print(f"breakdown {way}: {len(jobs)} jobs, {len(run.spec.tasks)} units x {repeats[way]} runs, "
              f"{'agent ' + args.agent if way == 'agent' else 'chat API'}, prompts {args.prompts}"
              f"{f'; continuing, {run.done_before} done' if run.done_before else ''}", file=sys.stderr)
        bar = Progress(run.left, way)
        service.run_and_store(run, store, on_result=lambda r, bar=bar: bar.step(r["outcome"] == "pass"), say=say)
        runs[way] = run.spec.runs_root / run_id
    doc = breakdown_document(model, where["url"], args.prompts, runs, other, {w: repeats[w] for w in runs},
                             {j.id for j in jobs})
    validate_breakdown(doc)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{'job':10} " + " ".join(f"{w:>16}" for w in WAYS) + "  winner")
    for job, f in doc["jobs"].items():
        cells = []
        for w in WAYS:
            v = f["ways"].get(w)
            cells.append(f"{'-':>16}" if v is None else
                         f"{100 * v['accuracy']:5.1f}% ({100 * v['ci'][0]:.0f}-{100 * v['ci'][1]:.0f})".rjust(16))
        print(f"{job:10} " + " ".join(cells) + f"  {f['winner']}")
    print(f"{out} written; rows in {args.db} (breakdown_answers)", file=sys.stderr)
    return 0


def add_breakdown_parser(sub) -> None:
    s = sub.add_parser("breakdown", help="five jobs of language and exact work, each three ways: an agent task, "
                                         "one prompt, one question per item")
    add_language_options(s, 600.0)
    s.add_argument("--agent-runs", type=int, default=1, help="repetitions of the agent way (0: leave it out)")
    s.add_argument("--api-runs", type=int, default=1, help="repetitions of the two chat ways (0: leave them out)")
    s.add_argument("--agent", choices=["pi", "builtin"], default="pi")
    add_run_options(s, "pi_path")
    s.add_argument("--prompts", choices=list(WORDINGS), default="tested",
                   help="tested (refined wording, default) or first (the plain first wording)")
    s.set_defaults(func=cmd_breakdown)
