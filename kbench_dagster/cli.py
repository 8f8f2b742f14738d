"""The `kbench` command line: the same functions the Dagster assets call.

Each command's module is imported only when that command runs (or when the whole list is asked for, as `--help`
and a mistyped command do): the modules of all of them took half a second of every command's start.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

# command -> the module and function that add it (and the commands listed with it) to the parser; the modules of
# kbench_dagster/commands hold one group of commands each
COMMANDS = {
    **dict.fromkeys(("list", "show", "validate", "run", "serve-scripted", "serve-local", "demo", "sql", "ui"),
                    ("kbench_dagster.commands.core", "add_core_parsers")),
    **dict.fromkeys(("report", "collect", "export", "compare", "triage", "board"),
                    ("kbench_dagster.reporting.commands", "add_report_parsers")),
    "kernels": ("gpu.cli", "add_kernels_parser"),
    "selftest": ("kbench_dagster.selftest.cli", "add_selftest_parser"),  # the hostile fault suite
    # the suite contract; difficulty from gradings
    "audit": ("kbench_dagster.commands.audit", "add_audit_parser"),
    **dict.fromkeys(("models", "regrade"), ("kbench_dagster.commands.models", "add_registry_parsers")),
    "textjobs": ("kbench_dagster.commands.textjobs", "add_textjobs_parser"),
    # servers under names, with hardware
    "endpoints": ("kbench_dagster.commands.endpoints", "add_endpoints_parser"),
    # another machine's collect file or run folders
    "import": ("kbench_dagster.commands.import_results", "add_import_parser"),
    "trials": ("kbench_dagster.commands.trials", "add_trials_parser"),
    "swe": ("kbench_dagster.commands.swe", "add_swe_parser"),  # a trusted SWE-style dataset as a suite
    "import-tasks": ("kbench_dagster.commands.import_tasks", "add_import_tasks_parser"),  # Harbor task folders
    # time, tokens and cost of a planned run
    "estimate": ("kbench_dagster.commands.estimate", "add_estimate_parser"),
    "discover": ("kbench_dagster.commands.discover", "add_discover_parser"),  # candidates from another benchmark
    "breakdown": ("kbench_dagster.commands.breakdown", "add_breakdown_parser"),  # five jobs three ways
    "capability": ("kbench_dagster.commands.capability", "add_capability_parser"),  # klbench's categories
    "deploy": ("kbench_dagster.commands.deploy", "add_deploy_parser"),  # Dagster in containers on this machine
    "runs": ("kbench_dagster.commands.runs", "add_runs_parser"),  # the saved runs of a records folder
}


# how `kbench --help` lists the commands: every command in one group (tests/test_cli.py checks)
GROUPS = {
    "agent runs": ("run", "demo", "list", "show", "estimate", "import-tasks", "swe", "discover"),
    "other kinds of work": ("kernels", "textjobs", "trials", "capability", "breakdown"),
    "results": ("runs", "report", "board", "compare", "triage", "export", "collect", "import", "regrade", "sql"),
    "servers": ("serve-local", "serve-scripted", "endpoints", "models"),
    "pipeline": ("ui", "deploy"),
    "checks": ("validate", "audit", "selftest"),
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kbench-dagster")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _grouped(sub) -> str:
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    out = []
    for title, names in GROUPS.items():
        shown = [n for n in names if n in helps]
        if shown:
            out.append(f"{title}:\n" + "\n".join(f"  {n:<15} {helps[n]}" for n in shown))
    return "\n\n".join(out) + "\n\n`kbench COMMAND --help` tells more of one command."


class SuiteOption(argparse.Action):
    """--suite, noting that it was given (args.suite_given): report and export keep only the named suite's runs, and
    the default (kbench) must not filter out every other suite's."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.suite, namespace.suite_given = values, True


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for `command` (its module's commands only), or for every command, listed by group."""
    p = argparse.ArgumentParser(prog="kbench", description="Benchmark language models as real agents.",
                                usage="kbench [-h] [--version] [--suite SUITE] COMMAND ...",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"kbench {_version()}")
    p.add_argument("--suite", default="kbench", action=SuiteOption,
                   help="suite name or folder (default kbench); `run --suite kernels`: the GPU kernel tasks; "
                        "report and export: only the runs of that suite")
    p.set_defaults(suite_given=False)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", help=argparse.SUPPRESS,
                           prog="kbench [--suite SUITE]")
    adders = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module, function in adders:
        getattr(importlib.import_module(module), function)(sub)
    p.epilog = _grouped(sub)
    return p


def _command_of(argv: list[str]) -> str | None:
    """The command named in argv, past the global --suite option; None when there is none."""
    i = 0
    while i < len(argv):
        if argv[i] == "--suite":
            i += 2
        elif argv[i].startswith("--suite="):
            i += 1
        else:
            return argv[i]
    return None


def _shown_errors() -> tuple[type[BaseException], ...]:
    """What main shows as one line: bad input (a broken task file's TaskFileError is a ValueError) and the store's
    own errors (DuckDB's only if the command loaded it: none could have been raised otherwise)."""
    duckdb = sys.modules.get("duckdb")
    return (ValueError, RuntimeError) + ((duckdb.Error,) if duckdb is not None else ())


def main(argv: list[str] | None = None) -> int:
    # A command holds a suite and a run's records as many long-lived objects; at the default thresholds the
    # collector went over all of them again and again (a third of a cached 1,500-trial strike). Fewer, larger young
    # collections, as mypy does; cycles are still collected.
    gc.set_threshold(200_000, 30, 30)
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(_command_of(argv)).parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:
        if not isinstance(exc, _shown_errors()):
            raise
        from kbench_dagster.terminal import visible

        print(f"error: {visible(exc)}", file=sys.stderr)  # a harness error can name an agent's file
        return 2


if __name__ == "__main__":
    sys.exit(main())
