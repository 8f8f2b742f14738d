"""`kbench trials run|gate|probe|show|hash`: the tool-use trials (sandbox/chatwork/trials.py) from the command line.

run asks a server every trial (K samples: attempt k sends the run's sampling seed + k), stores each verdict in
trial_results and prints pass@1 per family and grade with Wilson intervals. gate proves the suite without a server:
every trial passes its own reference answer, fails an empty reply and a bare `{}`, and no two prompts are the same.
show prints exactly what a trial sends (the one function that builds the request); hash the two fingerprints.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.commands.textjobs import add_language_options, chat_run_spec
from kbench_dagster.commands.trials_bfcl import add_import_bfcl
from kbench_dagster.commands.trials_release import add_release_parsers
from kbench_dagster.commands.trials_report import add_report_parsers
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting.stats import wilson_p
from kbench_dagster.run_settings import add_run_options, setting
from kbench_dagster.terminal import say
from sandbox.chatwork.formats import MODES, POLICIES
from sandbox.chatwork.trial_checks import gate_problems, probe
from sandbox.chatwork.trials import CACHE_DIR, ToolTrials, request_of, select_trials
from sandbox.engine.attempt_reader import records_of
from sandbox.engine.reply_cache import ReplyCache
from task_defs.trials.loader import rules_fingerprint
from task_defs.vocabulary import SCORED


def figures(run_dir: Path, units: set[str], seeds: set[int]) -> dict:
    """pass@1 (each trial's pass share, averaged over trials) with a Wilson interval, per family and per grade."""
    rs = [r for r in (rec.result() for rec in records_of(run_dir))
          if r["task"] in units and r["seed"] in seeds and r["outcome"] in SCORED]
    out = {}
    for by in ("category", "tier"):
        shares: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
        for r in rs:
            shares[r[by]][r["task"]].append(r["outcome"] == "pass")
        table = {}
        for key, trials in sorted(shares.items()):
            p = sum(sum(v) / len(v) for v in trials.values()) / len(trials)
            runs = sum(len(v) for v in trials.values())
            table[key] = {"trials": len(trials), "runs": runs, "pass_at_1": p, "pass_at_1_ci": wilson_p(p, runs)}
        out["families" if by == "category" else "grades"] = table
    causes: dict[str, int] = defaultdict(int)
    for r in rs:
        if r["outcome"] != "pass":
            causes[(r.get("trial") or {}).get("cause") or "other"] += 1
    out["causes"] = dict(sorted(causes.items(), key=lambda kv: -kv[1]))
    return out


def cmd_run(args) -> int:
    runs_root = Path(setting(args, "runs_root"))
    cache = None if args.no_cache else ReplyCache(Path(args.cache) if args.cache else runs_root / CACHE_DIR)
    store = open_store(args.db)
    with store.opened_ahead():  # for the endpoint's lookup, while the suite loads
        kind = ToolTrials(response_format=args.response_format, cache=cache)
        kind.heap = args.heap  # heap_peak_bytes traced per row only when asked: tracemalloc slows grading
        units = select_trials(kind, args.only, args.limit, args.sample)
        run = chat_run_spec(args, kind, units, "trials", store)
    spec = run.spec
    run_id, model = spec.run_id, spec.model
    print(f"trials {run_id}: {len(units)} trials x {len(spec.seed_list)} samples = {run.planned} requests, model "
          f"{model} at {spec.url}{'; continuing, ' + str(run.done_before) + ' done' if run.done_before else ''}",
          file=sys.stderr)
    bar = Progress(run.left, "trials")
    done = service.run_and_store(run, store, on_result=lambda r: bar.step(r["outcome"] == "pass"), say=say)
    doc = {"run_id": run_id, "model": model, "suite_fingerprint": kind.fingerprint, "rules": rules_fingerprint(),
           "response_policy": args.response_format, "response_format": kind.negotiation.mode,
           **figures(spec.runs_root / run_id, {u.id for u in units}, set(spec.seed_list))}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    for part, label in (("families", "family"), ("grades", "grade")):
        print(f"{label:10} {'trials':>6} {'runs':>5} {'pass@1':>7}  95% CI")
        for key, f in doc[part].items():
            lo, hi = f["pass_at_1_ci"]
            print(f"{key:10} {f['trials']:6} {f['runs']:5} {100 * f['pass_at_1']:6.1f}%  "
                  f"{100 * lo:.0f}-{100 * hi:.0f}%")
    if doc["causes"]:
        print("failures by cause: " + ", ".join(f"{k} {n}" for k, n in doc["causes"].items()))
    print(f"ran {done.summary['ran']}, already done {done.summary['already_done']}; {args.out} written; "
          f"{done.stored.get('trial_results', 0)} rows in {args.db} (trial_results)", file=sys.stderr)
    return 0


def cmd_gate(args) -> int:
    kind = ToolTrials()
    problems = gate_problems(kind)
    for p in problems:
        print(p)
    print(f"{len(kind.units)} trials in {len(kind.families)} families; reference 100% needed, empty and {{}} 0% "
          f"needed, no repeated prompt: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'green'}")
    return 1 if problems else 0


def cmd_probe(args) -> int:
    kind = ToolTrials()
    found = probe(kind)
    for name, v in found.items():
        print(f"{v['kind']:10} {name:32} {100 * v['share']:6.2f}% of {v['trials']} trials")
    floor = max(v["share"] for v in found.values() if v["kind"] == "chance")
    broken = [n for n, v in found.items() if v["kind"] == "structural" and v["score"] > 0]
    print(f"chance floor {100 * floor:.1f}% (the best no-knowledge strategy); structural strategies "
          f"{'score above 0: ' + ', '.join(broken) if broken else 'all exactly 0'}")
    return 1 if broken else 0


def cmd_show(args) -> int:
    messages, tools, fmt = request_of(ToolTrials().get(args.trial), args.seed, args.mode)
    print(json.dumps({"messages": messages, "tools": tools, **({"response_format": fmt} if fmt else {})}, indent=1,
                     ensure_ascii=False))
    return 0


def cmd_hash(args) -> int:
    print(f"suite {ToolTrials().fingerprint}\nrules {rules_fingerprint()}")
    return 0


def add_trials_parser(sub) -> None:
    p = sub.add_parser("trials", help="tool-use trials: run against a server, gate, show, hash")
    tsub = p.add_subparsers(dest="trials_cmd", required=True)
    s = tsub.add_parser("run", help="every trial asked of a server; pass@1 per family and grade to OUT.json")
    add_language_options(s, 120.0, "families")
    add_run_options(s, "seeds")  # sample k of a trial sends seed + k
    s.add_argument("--response-format", choices=POLICIES, default="auto",
                   help="the answer channel of label and JSON trials: auto starts at json_schema and steps down "
                        "only when the server refuses a format; a pinned one never steps down")
    s.add_argument("--cache", help=f"reply cache folder (default RUNS/{CACHE_DIR}): a request asked before of the "
                                   "same endpoint and model, for the same sample, is answered from it (and a shell "
                                   "trial's commands run before over the same files, from what they left)")
    s.add_argument("--no-cache", action="store_true", help="ask the server every request")
    s.add_argument("--heap", action="store_true", help="record each row's heap_peak_bytes (tracemalloc around "
                                                       "its grading; grading runs several times slower)")
    s.add_argument("--sample", type=int, help="a stratified K of each family: spread over its grades and over "
                                              "hand-written and generated trials, the same K giving the same trials")
    s.add_argument("--run-id", help="default trials-MODEL: the same command resumes that run")
    s.set_defaults(func=cmd_run)
    s = tsub.add_parser("gate", help="reference 100%%, no-knowledge answers 0%%, no repeated prompt (no server)")
    s.set_defaults(func=cmd_gate)
    s = tsub.add_parser("probe", help="no-knowledge strategies: structural ones must score 0; chance is the floor")
    s.set_defaults(func=cmd_probe)
    s = tsub.add_parser("show", help="exactly what a trial sends")
    s.add_argument("--trial", required=True)
    s.add_argument("--seed", type=int, default=1, help="the attempt (the tools' order depends on it)")
    s.add_argument("--mode", choices=MODES, default=MODES[0], help="the answer format asked in")
    s.set_defaults(func=cmd_show)
    s = tsub.add_parser("hash", help="the suite's and the oracle rules' fingerprints")
    s.set_defaults(func=cmd_hash)
    add_report_parsers(tsub)
    add_release_parsers(tsub)
    add_import_bfcl(tsub)
