"""The subcommands report, collect, export, compare, triage and board: their arguments and what each runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kbench_dagster.cli import SuiteOption
from kbench_dagster.commands.compare_runs import add_model_options, compare_models
from kbench_dagster.parquet_store import open_store
from kbench_dagster.reporting.compare import compare, render_compare
from kbench_dagster.reporting.export import collect, export_rows, validate_results
from kbench_dagster.reporting.loaders import load_manifest, load_results, runs_of_suite
from kbench_dagster.reporting.tables import render
from kbench_dagster.reporting.triage import render_evidence, render_triage
from kbench_dagster.store import DEFAULT_DB
from kbench_dagster.terminal import visible

SUITE_HELP = ("only the runs of this suite, as their manifests name it (the same as `kbench --suite NAME %s`); "
              "a suite no run is of is an error naming the suites there are")


def _suite(args) -> str | None:
    """The suite report and export keep: one named with --suite, before the command or after it; never the
    global option's default, which would drop every other suite's runs unasked."""
    return args.suite if args.suite_given else None


def cmd_report(args) -> int:
    runs, suite = Path(args.runs), _suite(args)
    if suite is None and not args.run_id:
        raise ValueError("report takes a RUNID, or --suite NAME for every run of that suite in --runs")
    ids = list(runs_of_suite(runs, suite, [args.run_id] if args.run_id else None)) if suite else [args.run_id]
    print(visible("\n\n".join(render(rid, load_results(runs, rid), load_manifest(runs, rid)) for rid in ids)))
    return 0


def cmd_collect(args) -> int:
    from kbench_dagster.reporting import results_tree

    if args.check:
        if args.run_ids or args.into:
            raise ValueError("collect --check DIR checks a results tree: give no RUNID and no --into with it")
        files, problems = results_tree.check_tree(Path(args.check))
        for p in problems:
            print(f"error: {visible(p)}", file=sys.stderr)  # a file from elsewhere may hold any text
        print(f"{args.check}: {files} results files, {len(problems)} with problems")
        return 1 if problems else 0
    if not args.run_ids:
        raise ValueError("collect takes RUNIDs (or --check DIR)")
    doc = collect(Path(args.runs), args.run_ids)
    validate_results(doc)
    if args.into:
        for path in results_tree.write_tree(doc, Path(args.into)):
            print(path)
        return 0
    print(json.dumps(doc, indent=1))
    return 0


def cmd_export(args) -> int:
    runs, suite = Path(args.runs), _suite(args)
    if args.db is None and args.run_ids:
        ids = list(runs_of_suite(runs, suite, args.run_ids)) if suite else args.run_ids
        rows = [r for rid in ids for r in load_results(runs, rid)]
        source = str(runs)
    else:
        from kbench_dagster.reporting.board_data import load_rows

        path = Path(args.db or DEFAULT_DB)
        if not path.exists():
            raise ValueError(f"no results store at {path} (give --db, or RUNIDs with --runs)")
        where, params = [], list(args.run_ids)
        if args.run_ids:
            where.append("run_id IN (" + ", ".join("?" for _ in args.run_ids) + ")")
        if suite:
            # the store keeps no suite names: the suite's versions are the fingerprints its runs' manifests record
            fps = sorted({m["suite"]["fingerprint"] for m in runs_of_suite(runs, suite).values()})
            where.append("suite_fingerprint IN (" + ", ".join("?" for _ in fps) + ")")
            params += fps
        rows = load_rows(open_store(path), " AND ".join(where), params)
        source = f"the store at {path}"
    if suite and not rows:  # an empty file would pass for a suite that has no results
        raise ValueError(f"no finished attempt of suite {suite!r} in {source}")
    text = export_rows(rows, args.format)
    if args.out:
        Path(args.out).write_text(text)
        print(f"{len(rows)} rows written to {args.out}", file=sys.stderr)
    else:
        text = visible(text) if sys.stdout.isatty() else text  # a file or pipe gets the data as it is
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_compare(args) -> int:
    if args.models:
        return compare_models(args, _compare_runs)
    if not (args.run_a and args.run_b):
        raise ValueError("compare takes two run ids, or --models A,B to make and compare their runs")
    return _compare_runs(args)


def _compare_runs(args) -> int:
    a, b = load_results(Path(args.runs), args.run_a), load_results(Path(args.runs), args.run_b)
    comps = compare(a, b, seed=args.seed, mcnemar_seed=args.mcnemar_seed)
    if args.condition:
        comps = [c for c in comps if c["condition"] == args.condition]
    name = lambda rid, rs: f"{rid} ({rs[0]['model']}, {rs[0]['agent']})" if rs else rid  # noqa: E731
    print(visible(render_compare(name(args.run_a, a), name(args.run_b, b), comps)))
    return 0


def cmd_triage(args) -> int:
    results = load_results(Path(args.runs), args.run_id)
    # every line of it can carry agent-made text (messages, file names, tool and test output): shown, not obeyed
    print(visible(render_evidence(results, args.task) if args.task else render_triage(args.run_id, results)))
    return 0


def cmd_board(args) -> int:
    from kbench_dagster.reporting.board_pages import build_board
    from kbench_dagster.reporting.board_server import serve

    path = Path(args.db or DEFAULT_DB)
    if args.results:
        from kbench_dagster.reporting.results_tree import import_tree

        done, problems = import_tree(open_store(path), Path(args.results))
        for p in problems:
            print(f"error: {visible(p)}", file=sys.stderr)
        print(f"{args.results}: {len(done)} results files imported into {path}, {len(problems)} refused")
    if not path.exists():
        raise ValueError(f"no results store at {path}: run `kbench run` first, or give --db")
    index = build_board(open_store(path), Path(args.out), runs_root=Path(args.runs))
    print(f"board written: {index}")
    if args.serve:
        serve(Path(args.out), port=args.port)
    return 0


def add_report_parsers(sub) -> None:
    """Register report, collect, export, compare, triage and board on the kbench subparsers.

    report, collect, compare and triage read a run's result.json files, so they work without the store; export
    reads the store or the records; board builds the static site from the store.
    """
    s = sub.add_parser("report", help="the tables of one run, with confidence intervals and warnings (--suite: of "
                                      "every run of a suite)")
    s.add_argument("run_id", metavar="RUNID", nargs="?", help="the run (with --suite: it must be of that suite)")
    s.add_argument("--runs", default="runs")
    # SUPPRESS: left unsaid, it keeps what `kbench --suite NAME report` said
    s.add_argument("--suite", action=SuiteOption, default=argparse.SUPPRESS, help=SUITE_HELP % "report")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("collect", help="the report's numbers of runs as JSON (validated against the schema)")
    s.add_argument("run_ids", metavar="RUNID", nargs="*")
    s.add_argument("--runs", default="runs")
    s.add_argument("--into", metavar="DIR", help="write each run as DIR/<site>/<hardware>/<run>.json (a results tree, "
                                                 "its site and hardware as the run's endpoint declared them)")
    s.add_argument("--check", metavar="DIR", help="check every file of a results tree against the schema and its "
                                                  "place; each bad file is named with its field")
    s.set_defaults(func=cmd_collect)

    s = sub.add_parser("export", help="every attempt as CSV or JSON, from the store (or from records with RUNIDs)")
    s.add_argument("run_ids", metavar="RUNID", nargs="*")
    s.add_argument("--format", choices=["csv", "json"], default="csv")
    s.add_argument("--db", help="the results DuckDB (default: the store unless RUNIDs are given)")
    s.add_argument("--runs", default="runs",
                   help="records folder: read with RUNIDs and no --db, and for --suite's manifests")
    s.add_argument("--out", help="write to this file instead of stdout")
    s.add_argument("--suite", action=SuiteOption, default=argparse.SUPPRESS,
                   help=SUITE_HELP % "export" + "; from the store, the suite's versions are those its runs in --runs "
                                                "record")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("compare", help="paired comparison of two runs on the same tasks (or of two models: --models)")
    s.add_argument("run_a", metavar="RUNID_A", nargs="?")
    s.add_argument("run_b", metavar="RUNID_B", nargs="?")
    add_model_options(s)
    s.add_argument("--runs", default="runs")
    s.add_argument("--condition", help="only this condition")
    s.add_argument("--mcnemar-seed", type=int, help="the seed whose outcomes McNemar uses (default: the most shared)")
    s.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("triage", help="why a run's attempts failed, ranked by cause; --task: one task's evidence")
    s.add_argument("run_id", metavar="RUNID")
    s.add_argument("--task", help="print this task's conversation, hidden test output and final files")
    s.add_argument("--runs", default="runs")
    s.set_defaults(func=cmd_triage)

    s = sub.add_parser("board", help="write the static results site from the store (and serve it)")
    s.add_argument("--db", help="the results DuckDB (default $KBENCH_DB or .state/kbench.duckdb)")
    s.add_argument("--out", default=str(DEFAULT_DB.parent / "board"),
                   help="output folder (default .state/board beside the results database)")
    s.add_argument("--runs", default="runs", help="the runs folder whose records give the trajectory pages; the "
                                                  "board reads no record outside it")
    s.add_argument("--results", metavar="DIR", help="first import every file of a results tree (kbench collect "
                                                    "--into) into --db, each as the site its folder names")
    s.add_argument("--serve", action="store_true", help="serve it on 127.0.0.1 after writing")
    s.add_argument("--port", type=int, default=8000)
    s.set_defaults(func=cmd_board)
