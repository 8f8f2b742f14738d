"""`kbench compare --models A,B [--repeat N] [run options]`: a paired comparison of two models on one suite, making
whatever runs are missing first. Each model's run has a fixed id (compare-MODEL-SUITE), so the same command
resumes a stopped comparison and never asks twice for an attempt that has a result; the runs are ordinary `kbench
run`s (the same loop, records and store), then compared as `kbench compare RUN_A RUN_B` compares them."""

from __future__ import annotations

import re
import sys


def run_id_of(model: str, suite: str) -> str:
    return "compare-" + re.sub(r"[^A-Za-z0-9._@-]+", "-", f"{model}-{suite}")


def compare_models(args, compare_runs) -> int:
    from kbench_dagster.cli import main  # the one CLI: the runs are `kbench run`s

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if len(models) != 2 or models[0] == models[1]:
        raise ValueError("--models takes two different model ids, A,B")
    if args.repeat < 1:
        raise ValueError("--repeat must be at least 1")
    ids = [run_id_of(m, args.suite) for m in models]
    for model, run_id in zip(models, ids):
        argv = ["--suite", args.suite, "run", run_id, "--model", model, "--seeds", str(args.repeat),
                "--runs", args.runs, "--agent", args.agent, "--conds", args.conds, "--workers", str(args.workers)]
        for flag, value in (("--url", args.url), ("--endpoint", args.endpoint), ("--tasks", args.tasks),
                            ("--work", args.work), ("--db", args.db)):
            if value:
                argv += [flag, value]
        print(f"compare: {model} as run {run_id} (what is missing only)", file=sys.stderr)
        rc = main(argv)
        if rc:
            return rc
    args.run_a, args.run_b = ids
    return compare_runs(args)


def add_model_options(s) -> None:
    """compare's options for the form that makes its runs."""
    s.add_argument("--models", metavar="A,B", help="compare two models, making their missing runs first")
    s.add_argument("--repeat", type=int, default=3, help="with --models: seeds per task (default 3)")
    s.add_argument("--url")
    s.add_argument("--endpoint")
    s.add_argument("--agent", choices=["pi", "builtin"], default="pi")
    s.add_argument("--tasks")
    s.add_argument("--conds", default="base")
    s.add_argument("--workers", type=int, default=1)
    s.add_argument("--work")
    s.add_argument("--db")
