"""`kbench audit`: the suite's design contract (exit 1 on any violation), or with --results how hard each task is."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting import difficulty
from kbench_dagster.store import DEFAULT_DB
from sandbox.isolation.bwrap import ISOLATION_MODES, IsolationConfig
from sandbox.isolation.workdirs import default_work_root
from sandbox.tasks.suite_audit import audit_suite
from task_defs.importers.loader import is_fixture_source
from task_defs.loader import load_suite, suite_root


def _suite_folder(name: str) -> Path:
    """The folder of task folders a suite name or path means; for JSON fixtures, the folders they were written
    into. A folder of task folders is audited as it lies, so a broken task is a finding, not an error."""
    folder = Path(name) if "/" in name else suite_root(name)
    if folder.is_dir() and not is_fixture_source(folder):
        return folder
    return load_suite(name).root


def cmd_audit(args) -> int:
    if args.results:
        _, rows = open_store(args.db).query(difficulty.PASS_RATES_SQL)
        for line in difficulty.report_lines(difficulty.by_task(rows)):
            print(line)
        return 0
    root = _suite_folder(args.suite)
    if not root.is_dir():
        raise ValueError(f"suite folder {root} does not exist")
    cfg = IsolationConfig(mode=args.isolation)
    cfg.preflight()
    only = {t.strip() for t in args.tasks.split(",") if t.strip()} if args.tasks else None
    count = sum(1 for p in root.iterdir() if p.is_dir() and (only is None or p.name in only))
    bar = Progress(count, "audit")
    start = time.monotonic()
    report = audit_suite(root, Path(args.work) if args.work else default_work_root(), cfg, args.workers, only,
                         on_result=lambda v: bar.step(v.status != "fail"))
    for v in report.violations:
        print(f"VIOLATION {v}")
    print(f"\n{'category':12} {'tier':9} {'tasks':>5} {'mutants':>8} {'alternatives':>13}")
    for category, tier, tasks, mutants, alternatives in report.coverage():
        print(f"{category:12} {tier:9} {tasks:5d} {mutants:8d} {alternatives:13d}")
    killed = sum(v.mutants_killed[0] for v in report.validations)
    shipped = sum(v.mutants_killed[1] for v in report.validations)
    skipped = [v.task_id for v in report.validations if v.status == "skipped"]
    print(f"\n{len(report.tasks)} tasks audited in {time.monotonic() - start:.1f}s: {len(report.violations)} "
          f"violations; mutants killed {killed}/{shipped}"
          + (f"; skipped here (requirements missing): {', '.join(skipped)}" if skipped else ""))
    return 0 if report.ok else 1


def add_audit_parser(sub) -> argparse.ArgumentParser:
    s = sub.add_parser("audit", help="the suite's design contract, enforced (exit 1 on any violation); "
                                     "--results: difficulty and discrimination from stored gradings")
    s.add_argument("--tasks", help="task ids, comma-separated (default: all)")
    s.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 2))
    s.add_argument("--work", help="work root (default ~/kbench-work or $KBENCH_WORK)")
    s.add_argument("--isolation", choices=ISOLATION_MODES, default="auto")
    s.add_argument("--results", action="store_true", help="pass rate per task and contestant, saturated and dead "
                                                           "tasks, the share that discriminates")
    s.add_argument("--db", default=str(DEFAULT_DB), help=f"results DuckDB for --results (default {DEFAULT_DB})")
    s.set_defaults(func=cmd_audit)
    return s
