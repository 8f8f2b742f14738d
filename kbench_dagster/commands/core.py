"""The commands of the agent-task suite and the machinery around it: list, show, validate, run, the scripted and
local model servers, the demo, SQL over the store and the Dagster UI (kbench_dagster/cli.py registers them)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.commands.endpoints import add_endpoint_options, endpoint_settings
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting import loaders, tables
from kbench_dagster.run_settings import RunSettings, add_run_options, from_args, settings_of
from kbench_dagster.store import DEFAULT_DB
from kbench_dagster.terminal import say, visible
from sandbox.isolation.bwrap import ISOLATION_MODES, IsolationConfig
from sandbox.isolation.limits import GB, TEST_LIMITS, Limits
from sandbox.isolation.workdirs import default_work_root
from sandbox.servers.scripted import PERSONAS
from sandbox.servers.scripted.server import THINKS
from sandbox.tasks.validation import validate_tasks
from task_defs import load_suite
from task_defs.loader import select

SMOKE_TASKS = "fizz,clamp,countlines,counterrors,wordcount,hellosh"  # easy programming and terminal jobs


def _isolation(mode: str) -> IsolationConfig:
    cfg = IsolationConfig(mode=mode)
    cfg.preflight()
    if cfg.resolve() == "none":
        print("warning: bubblewrap (bwrap) not found or disabled: sessions run without isolation; "
              "install it with `apt-get install bubblewrap`", file=sys.stderr)
    return cfg


def _test_limits(args) -> Limits:
    return TEST_LIMITS.with_(rss_limit_bytes=int(args.rss_limit_gb * GB), max_procs=args.max_procs)


def cmd_list(args) -> int:
    suite = load_suite(args.suite)
    tasks = select(suite, args.tasks)
    if args.markdown:
        print("| id | category | tier | title |\n|---|---|---|---|")
        for t in tasks:
            print(f"| {t.id} | {t.category} | {t.tier} | {t.title} |")
    else:
        for t in tasks:
            print(f"{t.id:22} {t.category:12} {t.tier:9} {t.title}")
    print(f"{len(tasks)} tasks, suite {suite.name} fingerprint {suite.fingerprint[:16]}", file=sys.stderr)
    return 0


def _show_tree(title: str, folder: Path, skip: set[str] = frozenset()) -> None:
    if not folder.is_dir():
        return
    for f in sorted(folder.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts and f.name not in skip:
            print(f"--- {title}: {f.relative_to(folder)}")
            try:
                print(f.read_text(encoding="utf-8").rstrip())
            except UnicodeDecodeError:
                print(f"({f.stat().st_size} bytes of binary data)")


def cmd_show(args) -> int:
    suite = load_suite(args.suite)
    try:
        t = suite.get(args.task)
    except KeyError as exc:
        print(f"error: {exc.args[0]}; see `kbench list`", file=sys.stderr)
        return 2
    print(f"{t.id}: {t.title}\ncategory {t.category}, tier {t.tier}, language {t.language}")
    if t.graded_file:
        print(f"graded file: {t.graded_file}")
    if t.requires:
        print(f"requires: {', '.join(t.requires)}")
    for i, p in enumerate(t.all_prompts, 1):
        print(f"--- prompt {i}/{len(t.all_prompts)}\n{p.strip()}")
    _show_tree("setup", t.setup_dir)
    if t.setup_script.is_file():
        _show_tree("setup script", t.folder, skip={p.name for p in t.folder.iterdir() if p.name != "setup.sh"})
    if args.all:
        _show_tree("hidden test", t.test_dir)
        _show_tree("reference", t.solution_dir)
    return 0


def cmd_validate(args) -> int:
    suite = load_suite(args.suite)
    tasks = select(suite, args.tasks)
    cfg = _isolation(args.isolation)
    base = Path(args.work) if args.work else default_work_root()
    print(f"validating {len(tasks)} tasks of suite {suite.name} ({suite.fingerprint[:16]}), "
          f"isolation {cfg.resolve()}, {args.workers} workers", file=sys.stderr)
    bar = Progress(len(tasks), "validate")

    def show(v) -> None:
        bar.step(v.status == "ok")
        print(f"{v.status.upper():7} {v.task_id:22} {v.duration_s:5.1f}s  {v.reason}", flush=True)

    start = time.monotonic()
    results = validate_tasks(tasks, base, cfg, args.workers, args.keep_work, on_result=show,
                             test_limits=_test_limits(args))
    counts = {s: sum(v.status == s for v in results) for s in ("ok", "fail", "skipped")}
    killed = sum(v.mutants_killed[0] for v in results)
    mutants = sum(v.mutants_killed[1] for v in results)
    alts = [a for v in results for a in v.of_kind("alternative")]
    rate = f"{100 * killed / mutants:.0f}%" if mutants else "n/a"
    print(f"{counts['ok']} ok, {counts['fail']} failed, {counts['skipped']} skipped of {len(results)} tasks "
          f"in {time.monotonic() - start:.1f}s; mutants killed {killed}/{mutants} ({rate}); correct alternatives "
          f"passing {sum(a.as_expected for a in alts)}/{len(alts)}; suite fingerprint {suite.fingerprint}")
    if counts["fail"]:
        return 1
    if counts["skipped"] and not counts["ok"]:
        print("validate: nothing was validated: every task was skipped (each line above says why)", file=sys.stderr)
        return 1
    return 1 if args.strict and counts["skipped"] else 0


def run_settings(args, store) -> RunSettings:
    """`kbench run`'s options as the run's settings: each option is its field's (kbench_dagster/run_settings.py)."""
    return settings_of(**from_args(args, **endpoint_settings(args, store)))


def _endpoint_words(spec) -> str:
    e = spec.endpoint
    said = [f"endpoint {e['name']}" if e.get("name") else None, e.get("hardware_class"),
            spec.conds[0].sampling_label() if spec.conds and (spec.conds[0].sampling() or spec.conds[0].effort())
            else None]
    return f" ({', '.join(w for w in said if w)})" if any(said) else ""


def cmd_run(args) -> int:
    store = open_store(args.db)
    run = service.plan_run(run_settings(args, store), api_key=service.cli_api_key())
    spec, slots = run.spec, run.slots
    _isolation(spec.isolation.mode)  # warns when sessions would run without bubblewrap
    shared = (f"{slots.slots} server slots shared with every run against this URL (--server-slots N sets them)"
              if slots else "server slots not limited (--server-slots 0)")
    seeds = len(spec.seed_list)
    print(f"run {spec.run_id}: {len(spec.tasks)} tasks x {len(spec.conds)} conditions x {seeds} seeds = "
          f"{run.planned}, agent {spec.agent}, model {spec.model} at {spec.url}{_endpoint_words(spec)}, "
          f"{spec.workers} workers, {shared}", file=sys.stderr)
    bar = Progress(run.left, "run")
    if run.done_before:
        print(f"continuing: {run.done_before} of {run.planned} already have a result", file=sys.stderr)

    def show(r: dict) -> None:
        bar.step(r["outcome"] == "pass")
        extra = f" ({visible(r.get('infra_error') or '', layout=False)[:80]})" if r["outcome"] == "infra" else ""
        print(f"{r['outcome']:8} {r['condition']:9} {r['task']:22} s{r['seed']}  {r.get('duration_s', 0):6.1f}s  "
              f"turns {r.get('turns', 0)}{extra}", flush=True)

    done = service.run_and_store(run, store, on_result=show, say=say)
    print(f"ran {done.summary['ran']}, already done {done.summary['already_done']}, planned "
          f"{done.summary['planned']}; records in {spec.runs_root / spec.run_id}; "
          f"{done.stored.get('attempts', 0)} rows in {args.db}", file=sys.stderr)
    print(visible(tables.render(spec.run_id, loaders.load_results(spec.runs_root, spec.run_id))))
    return 0


def cmd_sql(args) -> int:
    cols, rows = open_store(args.db).query(args.query)
    print(render_table(cols, rows))
    print(f"({len(rows)} rows)", file=sys.stderr)
    return 0


def render_table(cols: list[str], rows: list[tuple]) -> str:
    cells = [[("" if v is None else visible(v, layout=False)) for v in row] for row in rows]  # agent text too
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    line = lambda vals: "  ".join(v.ljust(w) for v, w in zip(vals, widths))  # noqa: E731
    return "\n".join([line(cols), line(["-" * w for w in widths])] + [line(r) for r in cells])


def cmd_serve_scripted(args) -> int:
    from sandbox.servers.scripted import serve

    return serve(args.persona, port=args.port, model_id=args.model_id, latency=args.latency, slots=args.slots,
                 suite=args.suite, tool_format=args.tool_format, replay_path=args.replay,
                 chaos_delay=args.chaos_delay, verbose=args.verbose, ttft_s=args.ttft, token_rate=args.token_rate,
                 reject_formats=tuple(f for f in (args.reject_formats or "").split(",") if f), thinks=args.thinks)


def cmd_serve_local(args) -> int:
    from sandbox.servers.llama import serve

    return serve(args.model_pack, port=args.port, parallel=args.parallel, ctx=args.ctx)


def cmd_demo(args) -> int:
    from kbench_dagster.commands.demo import run_demo

    return run_demo(pack=args.model_pack, tasks=args.tasks, timeout_s=args.timeout, runs=args.runs)


def cmd_ui(args) -> int:
    from kbench_dagster.ui import run_ui

    return run_ui(port=args.port, home=args.home)


def add_core_parsers(sub) -> None:
    tasks_help = "task ids, categories or tiers, comma-separated (default: all)"

    s = sub.add_parser("list", help="the task list")
    s.add_argument("--tasks", help=tasks_help)
    s.add_argument("--markdown", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="the full text of one task")
    s.add_argument("task")
    s.add_argument("--all", action="store_true", help="also the hidden test and the reference solution")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("validate", help="prove each hidden test: fails untouched and every mutant, "
                                        "passes the reference and every alternative")
    s.add_argument("--tasks", help=tasks_help)
    s.add_argument("--strict", action="store_true", help="a skipped task fails the validation too")
    s.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 2))
    s.add_argument("--work", help="work root (default ~/kbench-work or $KBENCH_WORK)")
    s.add_argument("--keep-work", action="store_true")
    s.add_argument("--isolation", choices=ISOLATION_MODES, default="auto")
    s.add_argument("--rss-limit-gb", type=float, default=TEST_LIMITS.rss_limit_bytes / GB,
                   help="memory watchdog: what one session may hold in all, in GB (default 2)")
    s.add_argument("--max-procs", type=int, default=TEST_LIMITS.max_procs,
                   help="process watchdog: kill the session above this many tasks, threads counted (default 500)")
    s.set_defaults(func=cmd_validate)

    s = sub.add_parser("run", help="an agent does the tasks against a model server; each folder is graded")
    s.add_argument("run_id", metavar="RUNID")
    add_run_options(s, "model", "url")
    add_endpoint_options(s)
    add_run_options(s, "conds", "tasks", "seeds", "workers", "server_down_stop_s", "latency_budget_s",
                    "server_slots", "timeout_s", "thinking", "max_tokens", "extension", "work_root", "runs_root",
                    "pi_path", "keep_work", "defer_grading", "agent", "tool_format", "isolation", "rss_limit_gb",
                    "max_procs", "disk_limit_gb")
    s.add_argument("--db", default=str(DEFAULT_DB), help=f"results DuckDB (default {DEFAULT_DB} or $KBENCH_DB)")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("serve-scripted", help="a deterministic OpenAI-compatible server for tests and self-checks")
    s.add_argument("--persona", required=True,
                   choices=list(PERSONAS),
                   help="oracle solves each task with its reference (--suite textjobs: answers every item); null "
                        "only talks; liar claims success; chaos breaks every reply; hostile attacks the sandbox; "
                        "replay plays --replay FILE; noisy (--suite textjobs) misses a fixed share of the items")
    s.add_argument("--replay", help="JSONL file of replies, for --persona replay")
    s.add_argument("--port", type=int, default=8093)
    s.add_argument("--model-id")
    s.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    s.add_argument("--slots", type=int, help="requests served at once (default unlimited)")
    s.add_argument("--tool-format", choices=["native", "text"], default="native")
    s.add_argument("--chaos-delay", type=float, default=2.0)
    s.add_argument("--ttft", type=float, default=0.0, metavar="S",
                   help="seconds from a request (after --latency) to the first token of the reply (default 0)")
    s.add_argument("--token-rate", type=float, default=0.0, metavar="R",
                   help="tokens per second of a reply after its first token (default 0: no pacing, all at once)")
    s.add_argument("--reject-formats", metavar="TYPES",
                   help="response_format types to refuse with HTTP 400, e.g. json_schema,json_object (a server "
                        "without structured output)")
    s.add_argument("--thinks", choices=list(THINKS), default="never",
                   help="when a reply carries reasoning_content: never (default), when_asked (the request asks a "
                        "reasoning_effort other than none) or always")
    s.add_argument("--verbose", action="store_true")
    s.set_defaults(func=cmd_serve_scripted)

    s = sub.add_parser("serve-local", help="llama.cpp's server with a real instruct model, on 127.0.0.1")
    s.add_argument("--model-pack", choices=["1.5b", "0.5b"], default="1.5b",
                   help="Qwen2.5-Coder 1.5B (default) or the faster 0.5B, assembled from PyPI packages")
    s.add_argument("--port", type=int, default=8093)
    s.add_argument("--parallel", type=int, default=1, help="slots: requests served at once")
    s.add_argument("--ctx", type=int, default=16384, help="context per slot (default 16384)")
    s.set_defaults(func=cmd_serve_local)

    s = sub.add_parser("demo", help="a real local model, a smoke set with pi and builtin, then the report")
    s.add_argument("--model-pack", choices=["1.5b", "0.5b"], default="1.5b")
    s.add_argument("--tasks", default=SMOKE_TASKS)
    s.add_argument("--timeout", type=float, default=100.0, help="seconds per agent session (default 100)")
    s.add_argument("--runs", default="runs")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser("sql", help="run a query over the results DuckDB and print a table")
    s.add_argument("query")
    s.add_argument("--db", default=str(DEFAULT_DB), help=f"DuckDB file (default {DEFAULT_DB} or $KBENCH_DB)")
    s.set_defaults(func=cmd_sql)

    s = sub.add_parser("ui", help="the Dagster UI and daemon (dagster dev) on 127.0.0.1")
    s.add_argument("--port", type=int, default=3000)
    s.add_argument("--home", help="DAGSTER_HOME (default .state/dagster)")
    s.set_defaults(func=cmd_ui)
