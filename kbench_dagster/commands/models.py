"""`kbench models add|list|remove` and `kbench regrade`: the model registry the sensor also writes, and grading
stored attempts again after a hidden test changed."""

from __future__ import annotations

import sys
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.keys import model_key
from kbench_dagster.parquet_store import open_store
from kbench_dagster.store import DEFAULT_DB
from kbench_dagster.terminal import visible
from sandbox.isolation.bwrap import ISOLATION_MODES, IsolationConfig


def _configured_endpoints() -> dict[str, str]:
    from kbench_dagster.resources import endpoints_from_env  # Dagster's resources: loaded only for this command

    return endpoints_from_env().urls


def cmd_models(args) -> int:
    store = open_store(args.db)
    if args.action == "list":
        rows = store.models()
        for m in rows:
            print(f"{m['model_key']:50} {visible(m['model_id'], layout=False):40} {m['endpoint']:12} "
                  f"{m['first_seen']:%Y-%m-%d %H:%M}")
        print(f"{len(rows)} models registered in {args.db}", file=sys.stderr)
        return 0
    if not args.model or not args.endpoint:
        raise ValueError(f"kbench models {args.action} MODEL --endpoint NAME")
    key = model_key(args.model, args.endpoint)
    if args.action == "add":
        urls = _configured_endpoints()
        if args.endpoint not in urls:
            raise ValueError(f"no endpoint {args.endpoint!r}; configured (KBENCH_ENDPOINTS): {', '.join(urls)}")
        added = store.remember_model(key, args.model, args.endpoint)
        print(f"{'added' if added else 'already registered'}: {key} ({args.model} at {args.endpoint}, "
              f"{urls[args.endpoint]}); the sensor makes it a partition and benchmarks seed 1")
    else:
        if not store.forget_model(key):
            raise ValueError(f"{key} is not registered (see `kbench models list`)")
        print(f"removed: {key}; its results stay, the sensor drops its partition")
    return 0


def cmd_regrade(args) -> int:
    runs = Path(args.runs)
    run_ids = args.run_ids or sorted(p.parent.name for p in runs.glob("*/manifest.json"))
    if not run_ids:
        raise ValueError(f"no runs in {runs} (give --runs, or RUNID ...)")
    store = open_store(args.db)
    cfg = IsolationConfig(mode=args.isolation)
    cfg.preflight()
    work = Path(args.work) if args.work else None
    total = 0
    for run_id in run_ids:
        def show(r: dict, g: dict) -> None:
            print(f"  {r['condition']:9} {r['task']:22} s{r['seed']}  {r['outcome']:8} -> {g['outcome']}", flush=True)

        kind = service.kind_of_run(runs, run_id, args.suite)
        out = service.regrade_and_store(runs, run_id, kind, store, cfg, work, on_regraded=show)
        s = out.summary
        total += len(s.regraded)
        gone = f"; {len(s.gone)} of tasks no longer in the suite ({', '.join(sorted(set(s.gone)))})" if s.gone else ""
        if s.stepwise:
            gone += (f"; {len(s.stepwise)} of tasks graded step by step in their run, kept as graded "
                     f"({', '.join(sorted(set(s.stepwise)))})")
        rows = out.stored.get("gradings", 0) + out.stored.get("kernel_gradings", 0)
        print(f"{run_id}: regraded {len(s.regraded)}, current {s.current}, not scored {s.unscored}{gone}; "
              f"{rows} grading rows in {args.db} (suite {kind.name} {kind.fingerprint[:16]})")
        for why in s.unrepaired:  # harness errors whose recorded replies could not be graded: they stay infra
            print(f"  kept as infra: {visible(why, layout=False)}", file=sys.stderr)
    print(f"{total} attempts regraded", file=sys.stderr)
    return 0


def add_registry_parsers(sub) -> None:
    s = sub.add_parser("models", help="the models the Dagster pipeline benchmarks, one row per model and endpoint")
    s.add_argument("action", choices=["add", "list", "remove"])
    s.add_argument("model", nargs="?", help="model id as the server lists it at /v1/models")
    s.add_argument("--endpoint", help="endpoint name from KBENCH_ENDPOINTS (e.g. local)")
    s.add_argument("--db", default=str(DEFAULT_DB), help=f"results DuckDB (default {DEFAULT_DB} or $KBENCH_DB)")
    s.set_defaults(func=cmd_models)

    s = sub.add_parser("regrade", help="grade stored attempts again with today's hidden tests, and those a run "
                                        "deferred (no agent runs)")
    s.add_argument("run_ids", nargs="*", metavar="RUNID", help="default: every run in --runs")
    s.add_argument("--runs", default="runs", help="where records are (default ./runs)")
    s.add_argument("--work", help="work root (default ~/kbench-work or $KBENCH_WORK)")
    s.add_argument("--isolation", choices=ISOLATION_MODES, default="auto")
    s.add_argument("--db", default=str(DEFAULT_DB), help=f"results DuckDB (default {DEFAULT_DB} or $KBENCH_DB)")
    s.set_defaults(func=cmd_regrade)
