"""`kbench textjobs OUT.json`: the text jobs through the chat API, one request per item, through the one run loop.

Resumes after a kill (the same command redoes only the items without a result), shares the server's slots with
every other run (`--workers N` at most), stores one row per reply in DuckDB (textjob_replies) and writes
the figures per job to OUT.json (schema/textjobs.schema.json).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.commands.endpoints import add_endpoint_options, endpoint_settings
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting.textjobs import textjobs_document, validate_textjobs
from kbench_dagster.run_settings import add_run_options, from_args, settings_of
from kbench_dagster.store import DEFAULT_DB
from kbench_dagster.terminal import say, visible
from sandbox.chatwork.textjobs import TextJobs
from sandbox.engine.spec import API_AGENT
from sandbox.servers.probe import fetch_json


def model_of_server(url: str, api_key: str | None) -> str:
    """The server's first model id, for a run without --model."""
    try:
        data = fetch_json(url.rstrip("/") + "/models", api_key)["data"]
        return data[0]["id"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"--model not given and {url}/models did not name a model ({exc}); "
                         "start the server or give --model") from None


def chat_run_spec(args, kind, units: list, prefix: str, store) -> service.PlannedRun:
    """The run of a chat command as the language commands take it: the endpoint, the model (default: the
    server's first), run id PREFIX-MODEL unless --run-id, the server's slots asked once."""
    api_key = service.cli_api_key()
    where = endpoint_settings(args, store)
    model = args.model or model_of_server(where["url"], api_key)
    run_id = args.run_id or f"{prefix}-" + re.sub(r"[^A-Za-z0-9._@-]+", "-", model)
    settings = settings_of(**from_args(args, run_id=run_id, model=model, agent=API_AGENT, suite=kind.name,
                                       tasks=",".join(u.id for u in units), **where))
    return service.plan_run(settings, kind, api_key=api_key)


def cmd_textjobs(args) -> int:
    kind = TextJobs()
    units = kind.select(args.only, args.limit)
    store = open_store(args.db)
    run = chat_run_spec(args, kind, units, "textjobs", store)
    spec, slots = run.spec, run.slots
    jobs = sorted({u.job.id for u in units})
    print(f"textjobs {spec.run_id}: {len(units)} items of {', '.join(jobs)} x {len(spec.conds)} conditions x "
          f"{len(spec.seed_list)} seeds = {run.planned} requests, model {spec.model} at {spec.url}, {spec.workers} "
          f"at once{f', {slots.slots} server slots shared with every run' if slots else ''}", file=sys.stderr)
    if run.done_before:
        print(f"continuing: {run.done_before} of {run.planned} already have a result", file=sys.stderr)
    bar = Progress(run.left, "textjobs")

    def show(r: dict) -> None:
        bar.step(r["outcome"] == "pass")
        if r["outcome"] == "infra":
            print(f"infra    {r['task']:22} s{r['seed']}  {visible(r.get('infra_error') or '', layout=False)[:80]}",
                  file=sys.stderr, flush=True)

    done = service.run_and_store(run, store, on_result=show, say=say)
    labels = {j.id: list(j.spec.labels or []) for j in kind.jobs}
    # this command's items and seeds only: the same run may hold more from an earlier, wider command
    doc = textjobs_document(spec.runs_root / spec.run_id, labels, {u.id for u in units}, set(spec.seed_list))
    validate_textjobs(doc)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{'job':10} {'family':9} {'items':>5} {'pass':>7}  {'95% CI':13} {'invalid':>7}  headline")
    for job, f in doc["jobs"].items():
        rate = "n/a" if f["pass_rate"] is None else f"{100 * f['pass_rate']:.1f}%"
        ci = "" if not f["pass_rate_ci"] else f"{100 * f['pass_rate_ci'][0]:.0f}-{100 * f['pass_rate_ci'][1]:.0f}%"
        print(f"{job:10} {f['family']:9} {f['items']:5} {rate:>7}  {ci:13} {f['invalid']:7}  "
              f"{f['headline']} {f.get(f['headline'])}")
    print(f"ran {done.summary['ran']}, already done {done.summary['already_done']}; {out} written; "
          f"{done.stored.get('textjob_replies', 0)} rows in {args.db} (textjob_replies)", file=sys.stderr)
    return 0


def add_language_options(s, timeout_s: float, units: str = "jobs") -> None:
    """The options the chat commands (textjobs, breakdown, trials run, capability run) share: where the server is,
    which units, where it goes; the run's own as `kbench run` defines them."""
    s.add_argument("out", metavar="OUT.json")
    add_run_options(s, "url", "model", model=None)
    s.add_argument("--only", help=f"{units}, comma-separated (default: all)")
    s.add_argument("--limit", type=int, help=f"the first K items of each of the {units}, for a quick look")
    add_run_options(s, "workers", "conds", "timeout_s", "runs_root", "work_root", "server_slots", "server_down_stop_s",
                    conds="base", timeout_s=timeout_s)
    s.add_argument("--db", default=str(DEFAULT_DB))
    add_endpoint_options(s)


def add_textjobs_parser(sub) -> None:
    s = sub.add_parser("textjobs", help="short text jobs through the chat API (classification, fixes, tables, "
                                        "notes, news); figures per job to OUT.json")
    add_language_options(s, 300.0)
    add_run_options(s, "seeds")
    s.add_argument("--run-id", help="default textjobs-MODEL: the same command resumes that run")
    s.set_defaults(func=cmd_textjobs)
