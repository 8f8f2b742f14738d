"""`kbench trials stats|compare|triage`: what a strike's rows in trial_results say, read from the store.

Rows graded under other oracle rules than the ones in this checkout are refused, never re-read under these: the
message says how to bring them up to date (`kbench regrade RUN` grades the kept replies again, no server needed).
"""

from __future__ import annotations

import json
import sys

from kbench_dagster.parquet_store import open_store
from kbench_dagster.reporting.trial_stats import (
    compare_strikes,
    readable_rows,
    render_compare,
    render_stats,
    render_triage,
    stale_rules,
    strike_stats,
    triage,
)
from kbench_dagster.store import DEFAULT_DB, ResultsStore
from kbench_dagster.terminal import visible
from task_defs.trials.loader import rules_fingerprint

COLUMNS = ("trial", "family", "grade", "shape", "seed", "outcome", "score", "cause", "detail", "rules",
           "response_format", "elicitation", "forms", "rounds", "infra_error", "prompt_tokens", "completion_tokens",
           "unmetered_replies", "unmetered_chars", "oracle_ms", "heap_peak_bytes")
STRIKE_SQL = "SELECT " + ", ".join(COLUMNS) + " FROM trial_results WHERE run_id = ? ORDER BY trial, seed"


class StaleEvidence(ValueError):
    """A strike graded under other oracle rules."""


def strike_rows(store: ResultsStore, run_id: str) -> list[dict]:
    """The run's rows as trial_stats reads them (sample = the attempt's seed); refuses verdicts under other rules.
    A row the figures cannot read is named on stderr and left out (trial_stats.readable_rows)."""
    _, got = store.query(STRIKE_SQL, [run_id])
    if not got:
        _, runs = store.query("SELECT DISTINCT run_id FROM trial_results ORDER BY run_id")
        raise ValueError(f"no trial rows for run {run_id!r} in {store.path}; runs there: "
                         f"{', '.join(r[0] for r in runs) or 'none'}")
    rows = [{**dict(zip(COLUMNS, r)), "sample": r[COLUMNS.index("seed")]} for r in got]
    now = rules_fingerprint()
    stale = stale_rules(rows, now)
    if stale:
        raise StaleEvidence(f"run {run_id!r} was graded under other oracle rules ({', '.join(sorted(map(str, stale)))}"
                            f"; these are {now[:16]}): its verdicts are not re-read under new rules. Run `kbench "
                            f"regrade {run_id}` to grade its kept replies under these rules.")
    rows, notes = readable_rows(rows, run_id)
    for note in notes:
        print(f"run {visible(run_id, layout=False)}: {visible(note, layout=False)}", file=sys.stderr)
    return rows


def _store(args) -> ResultsStore:
    return open_store(args.db)


def cmd_stats(args) -> int:
    doc = strike_stats(strike_rows(_store(args), args.run_id), k=args.k)
    print(json.dumps(doc, indent=1) if args.json else render_stats(doc))
    return 0


def cmd_compare(args) -> int:
    store = _store(args)
    doc = compare_strikes(strike_rows(store, args.a), strike_rows(store, args.b))
    print(json.dumps(doc, indent=1) if args.json else render_compare(doc, args.a, args.b))
    return 0


def cmd_triage(args) -> int:
    rows = strike_rows(_store(args), args.run_id)
    if args.trial:
        mine = [r for r in rows if r["trial"] == args.trial]
        if not mine:
            raise ValueError(f"run {args.run_id!r} has no rows for trial {args.trial!r}")
        for r in mine:
            print(f"{visible(r['trial'], layout=False)} sample {r['sample']}: {r['outcome']}"
                  f"{' (' + r['cause'] + ')' if r['cause'] else ''}, score {r['score']}, format {r['response_format']},"
                  f" {r['rounds']} repl{'y' if r['rounds'] == 1 else 'ies'}, calls {r['forms'] or 'none'}")
            print("  " + visible(r["infra_error"] or r["detail"] or "", layout=False))
        print(f"evidence: kbench triage {args.run_id} --task {args.trial} (the conversation and the kept replies; "
              f"the records are lines of runs/{args.run_id}/ledger.jsonl)", file=sys.stderr)
        return 0
    doc = triage(rows)
    print(json.dumps(doc, indent=1) if args.json else render_triage(doc))
    return 0


def cmd_ranks(args) -> int:
    from kbench_dagster.reporting.trial_ranks import current_suite, load_strikes, official_ranks, render_ranks

    doc = official_ranks(load_strikes(_store(args)), current_suite(), top=args.top)
    print(json.dumps({k: v for k, v in doc.items() if k != "evidence"}, indent=1, default=str) if args.json
          else render_ranks(doc))
    return 0


def _k(text: str) -> int:
    """--k as every caller of pass@k takes it (stats.check_k), refused by argparse with the same words."""
    import argparse

    from kbench_dagster.reporting.stats import check_k

    try:
        return check_k(int(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc) if "pass@k" in str(exc) else f"not a number: {text!r}") from None


def add_report_parsers(tsub) -> None:
    s = tsub.add_parser("stats", help="pass@1 beside pass@k, per-trial and clustered intervals, weighted, per "
                                      "family and grade")
    s.add_argument("run_id")
    s.add_argument("--k", type=_k, help="k of pass@k (default: the most samples every trial has)")
    s.set_defaults(func=cmd_stats)
    s = tsub.add_parser("compare", help="two strikes paired by trial: McNemar on pass@1, discordant trials by family")
    s.add_argument("a")
    s.add_argument("b")
    s.set_defaults(func=cmd_compare)
    s = tsub.add_parser("triage", help="failures by cause; --trial ID for one trial's evidence")
    s.add_argument("run_id")
    s.add_argument("--trial")
    s.set_defaults(func=cmd_triage)
    s = tsub.add_parser("ranks", help="the official ranking: one newest full, current strike per model, and why "
                                      "every other strike is not ranked")
    s.add_argument("--top", type=int, default=25, help="how many ranks are shown (default 25)")
    s.set_defaults(func=cmd_ranks)
    for name in ("stats", "compare", "triage", "ranks"):
        p = tsub.choices[name]
        p.add_argument("--db", default=str(DEFAULT_DB))
        p.add_argument("--json", action="store_true", help="the figures as JSON")
