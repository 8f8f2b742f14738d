"""`kbench textjobs OUT.json`: the text jobs through the chat API, one request per item, through the one run loop.

Resumes after a kill (the same command redoes only the items without a result), shares the server's slots with
every other run (`--parallel N` workers at most), stores one row per reply in DuckDB (textjob_replies) and writes
the figures per job to OUT.json (schema/textjobs.schema.json).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.commands.endpoints import add_endpoint_options, endpoint_settings
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting.textjobs import textjobs_document, validate_textjobs
from kbench_dagster.store import DEFAULT_DB
from kbench_dagster.terminal import say, visible
from sandbox.chatwork.textjobs import TextJobs
from sandbox.engine.spec import API_AGENT, server_slots_of
from sandbox.servers.probe import fetch_json


def model_of_server(url: str, api_key: str | None) -> str:
    """The server's first model id, for a run without --model."""
    try:
        data = fetch_json(url.rstrip("/") + "/models", api_key)["data"]
        return data[0]["id"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"--model not given and {url}/models did not name a model ({exc}); "
                         "start the server or give --model") from None


def chat_run_spec(args, kind, units: list, prefix: str, seeds: int):
    """(spec, kind, slots) of a chat-only run as the language commands take it: the endpoint, the model (default:
    the server's first), run id PREFIX-MODEL unless --run-id, the server's slots asked once."""
    api_key = service.cli_api_key()
    where = endpoint_settings(args, open_store(args.db))
    model = args.model or model_of_server(where["url"], api_key)
    run_id = args.run_id or f"{prefix}-" + re.sub(r"[^A-Za-z0-9._@-]+", "-", model)
    settings = service.settings_of(
        run_id=run_id, model=model, agent=API_AGENT, suite=kind.name, tasks=",".join(u.id for u in units),
        conds=args.conds, seeds=list(range(1, seeds + 1)), workers=args.parallel, timeout_s=args.timeout,
        runs_root=args.runs, work_root=args.work, server_down_stop_s=args.server_wait, server_slots=args.server_slots,
        **where)
    spec, kind = service.build_spec(settings, kind, api_key=api_key)
    slots = server_slots_of(spec, kind)
    return replace(spec, server_slots=slots.slots if slots else 0), kind, slots


def cmd_textjobs(args) -> int:
    kind = TextJobs()
    units = kind.select(args.only, args.limit)
    spec, kind, slots = chat_run_spec(args, kind, units, "textjobs", args.seeds)
    run_id, model = spec.run_id, spec.model
    total = len(spec.tasks) * len(spec.conds) * args.seeds
    jobs = sorted({u.job.id for u in units})
    print(f"textjobs {run_id}: {len(units)} items of {', '.join(jobs)} x {len(spec.conds)} conditions x "
          f"{args.seeds} seeds = {total} requests, model {model} at {spec.url}, {args.parallel} at once"
          f"{f', {slots.slots} server slots shared with every run' if slots else ''}", file=sys.stderr)
    done_before = service.already_done(spec)
    if done_before:
        print(f"continuing: {done_before} of {total} already have a result", file=sys.stderr)
    bar = Progress(total - done_before, "textjobs")

    def show(r: dict) -> None:
        bar.step(r["outcome"] == "pass")
        if r["outcome"] == "infra":
            print(f"infra    {r['task']:22} s{r['seed']}  {visible(r.get('infra_error') or '', layout=False)[:80]}",
                  file=sys.stderr, flush=True)

    done = service.run_and_store(spec, kind, open_store(args.db), on_result=show, say=say)
    labels = {j.id: list(j.spec.labels or []) for j in kind.jobs}
    # this command's items and seeds only: the same run may hold more from an earlier, wider command
    doc = textjobs_document(Path(args.runs) / run_id, labels, {u.id for u in units}, set(range(1, args.seeds + 1)))
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


def add_language_options(s, timeout_s: float, unit: str) -> None:
    """The options `kbench textjobs` and `kbench breakdown` share: where the server is, which jobs, where it goes."""
    s.add_argument("out", metavar="OUT.json")
    s.add_argument("--url", help=f"OpenAI-compatible base URL (default: --endpoint's, else {service.DEFAULT_URL})")
    s.add_argument("--model", help="model id (default: the server's first in /v1/models)")
    s.add_argument("--only", help="jobs, comma-separated (default: every job)")
    s.add_argument("--limit", type=int, help="the first K items of each job, for a quick look")
    s.add_argument("--parallel", type=int, default=1, help=f"{unit}s at once (the server's slots still bound it)")
    s.add_argument("--conds", default="base", help="conditions (output cap and thinking), default base")
    s.add_argument("--timeout", type=float, default=timeout_s,
                   help=f"seconds per {unit} (default {timeout_s:g}); past it the {unit} is timeout")
    s.add_argument("--runs", default="runs")
    s.add_argument("--work", help="work folder root (default ~/kbench-work)")
    s.add_argument("--db", default=str(DEFAULT_DB))
    s.add_argument("--server-slots", type=int, help="requests at once against this server across every run")
    s.add_argument("--server-wait", type=float, default=600.0, metavar="S",
                   help="how long the run waits for a server that does not answer before it stops (default 600)")
    add_endpoint_options(s)


def add_textjobs_parser(sub) -> None:
    s = sub.add_parser("textjobs", help="short text jobs through the chat API (classification, fixes, tables, "
                                        "notes, news); figures per job to OUT.json")
    add_language_options(s, 300.0, "reply")
    s.add_argument("--seeds", type=int, default=1)
    s.add_argument("--run-id", help="default textjobs-MODEL: the same command resumes that run")
    s.set_defaults(func=cmd_textjobs)
