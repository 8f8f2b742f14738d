"""Reports on the command line: `kbench report`, `collect`, `export`, `compare`, `triage` and `board`.

`report`, `collect`, `compare` and `triage` read a run's result.json files (they work without the store);
`export` reads the store or the records; `board` builds the static site from the store. Every number comes
from `kbench_dagster.stats`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from kbench_dagster import stats
from kbench_dagster.board_trajectory import conversation, conversation_text, final_files, read_text
from kbench_dagster.stats import OUTCOMES, TIERS, fmt_ci, fmt_pct
from kbench_dagster.store import DEFAULT_DB
from kbench_dagster.terminal import visible
from sandbox.agents.record import read_events
from sandbox.records import finished_results

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schema" / "results.schema.json"
SCHEMA_ID = "kbench-results/1"
EXPORT_COLUMNS = ["run_id", "model", "agent", "condition", "task", "seed", "category", "tier", "outcome", "infra",
                  "infra_error", "requeues", "duration_s", "wall_s", "test_duration_s", "turns", "input_tokens",
                  "output_tokens", "cutoffs", "tool_calls", "native_calls", "text_calls", "tool_errors",
                  "tool_format_errors", "watchdog_kills", "test_kills", "outside_writes", "false_claim",
                  "agent_timeout", "stop_reason", "server_error", "detail", "suite_fingerprint", "isolation",
                  "started_at", "finished_at"]


# ---------------------------------------------------------------------------------------------- loading

def _check_run_id(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}", value):
        raise ValueError(f"RUNID {value!r}: use letters, digits, '.', '_' and '-' only")
    return value


def load_results(runs_root: Path, run_id: str) -> list[dict]:
    run_dir = Path(runs_root) / _check_run_id(run_id)
    if not run_dir.is_dir():
        raise ValueError(f"no run {run_id!r} in {runs_root} (see `ls {runs_root}`)")
    out = []
    for p in finished_results(run_dir):
        r = json.loads(p.read_text())
        r["record_path"] = str(p.parent)
        out.append(r)
    return out


def load_manifest(runs_root: Path, run_id: str) -> dict | None:
    p = Path(runs_root) / run_id / "manifest.json"
    return json.loads(p.read_text()) if p.exists() else None


def by_condition(results: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        out[r["condition"]].append(r)
    return dict(sorted(out.items()))


def mechanics(rs: list[dict]) -> dict:
    n = len(rs) or 1
    total = lambda key: sum(int(r.get(key) or 0) for r in rs)  # noqa: E731
    return {"mean_time_s": sum(float(r.get("duration_s") or 0) for r in rs) / n, "turns": total("turns"),
            "mean_turns": total("turns") / n, "output_tokens": total("output_tokens"),
            "input_tokens": total("input_tokens"), "cutoffs": total("cutoffs"), "tool_errors": total("tool_errors"),
            "tool_format_errors": total("tool_format_errors"), "watchdog_kills": total("watchdog_kills"),
            "outside_write_runs": sum(1 for r in rs if r.get("outside_writes")),
            "false_claims": sum(1 for r in rs if r.get("false_claim"))}


# ---------------------------------------------------------------------------------------------- report

def condition_rows(results: list[dict]) -> list[dict]:
    """One entry per condition: the statistics, the outcomes, the mechanics."""
    rows = []
    for cond, rs in by_condition(results).items():
        summary = stats.summarize(rs)
        rows.append({"condition": cond, **summary, "outcomes": {o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES},
                     "mechanics": mechanics(rs)})
    return rows


def render(run_id: str, results: list[dict], manifest: dict | None = None) -> str:
    """The three tables of `kbench report`, then the uncertainty lines and the publishability warnings."""
    if not results:
        return f"run {run_id}: no finished tasks yet"
    rows = condition_rows(results)
    out = [f"run {run_id}: {len(results)} results, model {results[0]['model']}, agent {results[0]['agent']}", ""]
    out.append(f"{'condition':10} {'runs':>4} {'pass@1 [95% CI]':>20} {'pass-any':>8}  "
               + " ".join(f"{t:>8}" for t in TIERS) + "  " + " ".join(f"{o:>7}" for o in OUTCOMES))
    for r in rows:
        tiers = " ".join(f"{r['tiers'].get(t, {}).get('passes', 0):>3}/{r['tiers'].get(t, {}).get('runs', 0):<4}"
                         for t in TIERS)
        outs = " ".join(f"{r['outcomes'][o]:>7}" for o in OUTCOMES)
        p1 = f"{fmt_pct(r['pass@1'])} {fmt_ci(r['pass@1_ci'])}"
        out.append(f"{r['condition']:10} {r['runs']:>4} {p1:>20} {fmt_pct(r['pass_any']):>8}  {tiers}  {outs}")
    conds = [r["condition"] for r in rows]
    per_task: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for res in results:
        per_task[res["task"]][res["condition"]].append(res["outcome"])
    out += ["", f"{'task':22} " + " ".join(f"{c:>10}" for c in conds)]
    for task in sorted(per_task):
        cells = []
        for c in conds:
            oc = per_task[task].get(c, [])
            scored = [o for o in oc if o in stats.SCORED]
            cells.append(f"{sum(o == 'pass' for o in scored)}/{len(scored)}" if scored else (oc[0] if oc else "-"))
        out.append(f"{task:22} " + " ".join(f"{x:>10}" for x in cells))
    out += ["", f"{'condition':10} {'mean s':>7} {'turns':>6} {'out tok':>8} {'cut-off':>7} {'tool err':>8} "
                f"{'fmt err':>7} {'false claims':>12} {'kills':>5} {'outside':>7}"]
    for r in rows:
        m = r["mechanics"]
        out.append(f"{r['condition']:10} {m['mean_time_s']:>7.1f} {m['turns']:>6} {m['output_tokens']:>8} "
                   f"{m['cutoffs']:>7} {m['tool_errors']:>8} {m['tool_format_errors']:>7} {m['false_claims']:>12} "
                   f"{m['watchdog_kills']:>5} {m['outside_write_runs']:>7}")
    out += ["", "uncertainty (seeds of a task are one cluster; pass rates are task-balanced):"]
    for r in rows:
        se_c = f", category-clustered SE {100 * r['se_category']:.1f}" if r["se_category"] is not None else ""
        out.append(f"  {r['condition']}: pass@1 {fmt_pct(r['pass@1'])}, task-clustered SE "
                   f"{100 * (r['se_task'] or 0):.1f} pts{se_c}, category bootstrap 95% {fmt_ci(r['boot_ci'])}; "
                   f"pass@{r['k']} {fmt_pct(r['pass@k'])}, pass^{r['k']} {fmt_pct(r['pass^k'])}; usability "
                   f"{fmt_pct(r['usability'])}, completion {fmt_pct(r['completion'])}, attrition "
                   f"{fmt_pct(r['attrition'])} ({r['infra']} infra)")
    infra = sum(r["outcome"] == "infra" for r in results)
    harness = [r for r in results if r.get("harness_error")]
    if infra > len(harness):
        out += ["", f"{infra - len(harness)} infra failures (server unreachable or broken replies) are excluded from "
                    "pass rates and counted as attrition."]
    if harness:
        out += ["", f"{len(harness)} harness errors (kbench itself failed on the attempt, not the model) are "
                    "excluded from pass rates and counted as attrition; the run kept them so they are seen: fix the "
                    "cause, delete those attempts' record folders and run the same command again to redo them:"]
        out += [f"  {r['task']} {r['condition']} s{r['seed']}: {visible(r['harness_error'], layout=False)[:300]}"
                for r in harness[:10]]
    warns = stats.publishability(results, [manifest] if manifest else None)
    if warns:
        out += ["", "not ready to publish:"] + [f"  - {w['message']}" for w in warns]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- collect, export

def _ci(ci) -> list | None:
    return None if ci is None else [float(ci[0]), float(ci[1])]


def _condition_json(cond: str, rs: list[dict]) -> dict:
    s = stats.summarize(rs)
    tt = stats.task_table(rs)
    return {
        "condition": cond, "tasks": s["tasks"], "runs": s["runs"], "passes": s["passes"],
        "pass_at_1": s["pass@1"], "pass_at_1_ci": _ci(s["pass@1_ci"]), "pass_rate_runs": s["pass_rate_runs"],
        "pass_any": s["pass_any"], "pass_any_ci": _ci(s["pass_any_ci"]), "k": s["k"], "pass_at_k": s["pass@k"],
        "pass_hat_k": s["pass^k"], "se_task": s["se_task"], "se_category": s["se_category"],
        "bootstrap_ci": _ci(s["boot_ci"]), "usability": s["usability"], "completion": s["completion"],
        "attrition": s["attrition"], "infra": s["infra"], "skipped": s["skipped"],
        "outcomes": {o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES},
        "tiers": {k: {"passes": v["passes"], "runs": v["runs"], "pass_at_1": v["pass@1"], "pass_at_1_ci": _ci(v["pass@1_ci"])}
                  for k, v in s["tiers"].items()},
        "categories": {k: {"passes": v["passes"], "runs": v["runs"], "pass_at_1": v["pass@1"],
                           "pass_at_1_ci": _ci(v["pass@1_ci"])} for k, v in s["categories"].items()},
        "mechanics": mechanics(rs),
        "false_claims": sum(1 for r in rs if r.get("false_claim")),
        "per_task": {t: {"passes": v["c"], "runs": v["n"], "infra": v["infra"], "category": v["category"],
                         "tier": v["tier"]} for t, v in sorted(tt.items())},
    }


def collect(runs_root: Path, run_ids: list[str]) -> dict:
    """The report's numbers for each run as one JSON document (schema/results.schema.json)."""
    runs = []
    for run_id in run_ids:
        results = load_results(runs_root, run_id)
        manifest = load_manifest(runs_root, run_id)
        first = results[0] if results else {}
        runs.append({
            "run_id": run_id, "model": first.get("model") or (manifest or {}).get("settings", {}).get("model"),
            "agent": first.get("agent") or (manifest or {}).get("settings", {}).get("agent"),
            "suite_fingerprint": first.get("suite_fingerprint") or (manifest or {}).get("suite", {}).get("fingerprint"),
            "versions": (manifest or {}).get("versions", {}), "results": len(results),
            "conditions": [_condition_json(c, rs) for c, rs in by_condition(results).items()],
            "false_claims": sum(1 for r in results if r.get("false_claim")),
            "warnings": stats.publishability(results, [manifest] if manifest else None) if results else
            [{"code": "empty", "message": "no results"}],
        })
    return {"schema": SCHEMA_ID, "runs": runs}


def validate_results(doc: dict) -> None:
    """Raise ValueError when doc does not match schema/results.schema.json."""
    schema = json.loads(SCHEMA_PATH.read_text())
    try:
        import jsonschema
    except ImportError as exc:  # the dev install carries it; say so plainly rather than skip the check
        raise ValueError("the jsonschema package is needed to validate results (pip install jsonschema)") from exc
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        raise ValueError(f"results do not match {SCHEMA_PATH.name}: {'/'.join(map(str, e.path))}: {e.message}"
                         + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))


def export_rows(rows: list[dict], fmt: str) -> str:
    cols = EXPORT_COLUMNS + sorted({k for r in rows for k in r} - set(EXPORT_COLUMNS) - {"final_message", "outside_write_paths", "files_left_out", "record_path"})
    clean = [{c: _plain(r.get(c)) for c in cols} for r in rows]
    if fmt == "json":
        return json.dumps(clean, indent=1, default=str)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerows(clean)
    return buf.getvalue()


def _plain(v):
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


# ---------------------------------------------------------------------------------------------- compare

def compare(results_a: list[dict], results_b: list[dict], seed: int = 0, mcnemar_seed: int | None = None) -> list[dict]:
    """Paired comparisons, one per condition both runs have."""
    a_by, b_by = by_condition(results_a), by_condition(results_b)
    out = []
    for cond in sorted(set(a_by) & set(b_by)):
        ta, tb = stats.task_table(a_by[cond]), stats.task_table(b_by[cond])
        out.append({"condition": cond, "a": stats.summarize_tasks(ta, breakdowns=False),
                    "b": stats.summarize_tasks(tb, breakdowns=False),
                    **stats.paired(ta, tb, seed=seed, mcnemar_seed=mcnemar_seed)})
    return out


def _pts(x: float | None) -> str:
    return "-" if x is None or x != x else f"{100 * x:+.1f}"


def _p3(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def render_compare(name_a: str, name_b: str, comparisons: list[dict]) -> str:
    if not comparisons:
        return f"{name_a} and {name_b} share no condition"
    out = [f"paired comparison: A = {name_a}, B = {name_b} (differences A - B in points; seeds of a task are one "
           "cluster)", ""]
    head = (f"{'condition':10} {'tasks':>5} {'A pass@1':>9} {'B pass@1':>9} {'A-B':>6} {'paired t 95% CI':>16} "
            f"{'p (t)':>7} {'bootstrap 95% CI':>17} {'McNemar p':>9} {'mid-p':>6} {'A/B only':>8} {'min gap':>7}")
    out.append(head)
    for c in comparisons:
        mc = c["mcnemar"] or {}
        ci_t = "-" if c["ci_t"] is None else f"[{_pts(c['ci_t'][0])}, {_pts(c['ci_t'][1])}]"
        ci_b = "-" if c["ci_boot"] is None else f"[{_pts(c['ci_boot'][0])}, {_pts(c['ci_boot'][1])}]"
        p_t = "-" if c["p_t"] is None else f"{c['p_t']:.3f}"
        out.append(f"{c['condition']:10} {c['tasks']:>5} {fmt_pct(c['a']['pass@1']):>9} {fmt_pct(c['b']['pass@1']):>9} "
                   f"{_pts(c['mean_diff']):>6} {ci_t:>16} {p_t:>7} {ci_b:>17} "
                   f"{_p3(mc.get('p_exact')):>9} {_p3(mc.get('p_mid')):>6} "
                   f"{str(mc.get('b', '-')) + '/' + str(mc.get('c', '-')):>8} "
                   f"{'-' if c['mdg'] is None else format(100 * c['mdg'], '.1f'):>7}")
    for c in comparisons:
        if c["tasks"] == 0:
            out += ["", f"{c['condition']}: no task scored in both runs, so there is nothing to compare"]
        elif c["mcnemar_seed"] is None:
            out += ["", f"{c['condition']}: no seed was run on the same task by both, so no McNemar; the t test and "
                        "the bootstrap work on per-task mean differences."]
        else:
            out += ["", f"{c['condition']}: McNemar on seed {c['mcnemar_seed']} only (A passed and B failed / the "
                        "reverse); the t test and the bootstrap work on per-task mean differences."]
        if c["mdg"] is not None:
            verdict = ("below the minimum detectable gap: report it as a tie" if abs(c["mean_diff"]) < c["mdg"]
                       else "at or above the minimum detectable gap")
            out.append(f"  minimum detectable gap at power 0.8 over {c['tasks']} tasks: {100 * c['mdg']:.1f} pts; "
                       f"the observed {_pts(c['mean_diff'])} pts is {verdict}")
        if c["only_a"] or c["only_b"]:
            out.append(f"  left out (scored in one run only): A {len(c['only_a'])}, B {len(c['only_b'])} tasks")
        if c["discordant"]:
            out.append("  discordant tasks by category:")
            for cat, d in c["discordant"].items():
                out.append(f"    {cat:12} A better: {', '.join(d['a_better']) or '-'}; B better: {', '.join(d['b_better']) or '-'}")
        else:
            out.append("  no discordant tasks")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- triage

CAUSE_ORDER = ["harness error (infra)", "server error (infra)", "server error", "agent timeout", "cut-off replies",
               "tool-format errors", "test timeout", "crash", "nofile", "wrong output"]


def crash_kind(detail: str, tests_text: str) -> str:
    """A short name for why the hidden test crashed: the exception class, a missing function, a watchdog kill."""
    if "watchdog" in (detail or ""):
        m = re.search(r"killed by the (\w+) watchdog", detail)
        return f"killed by the {m.group(1) if m else ''} watchdog".replace("  ", " ")
    for line in tests_text.splitlines():
        if line.startswith("CRASH"):
            if "has no function" in line:
                return "missing function"
            if "cannot load" in line or "node failed" in line:
                return "does not load"
            m = re.search(r":\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))\(", line) or \
                re.search(r":\s*([A-Za-z_][\w.]*)\(", line)
            if m:
                return m.group(1)
    if "without its result line" in (detail or ""):
        return "no result line"
    return "other"


def failure_cause(r: dict, tests_text: str = "") -> str:
    """One cause per failed attempt, the most telling first: server trouble, then the agent's own limits
    (time, cut-off replies, tool calls it could not make), then what the hidden test saw."""
    o = r["outcome"]
    if r.get("harness_error"):
        return "harness error (infra)"
    if o == "infra":
        return "server error (infra)"
    if r.get("server_error"):
        return "server error"
    if r.get("agent_timeout"):
        return "agent timeout"
    if (r.get("cutoffs") or 0) > 0:
        return "cut-off replies"
    if (r.get("tool_format_errors") or 0) > 0 and o == "nofile":
        return "tool-format errors"
    if o == "timeout":
        return "test timeout"
    if o == "crash":
        return f"crash: {crash_kind(r.get('detail') or '', tests_text)}"
    if o == "nofile":
        return "nofile"
    return "wrong output"


def triage(results: list[dict]) -> dict:
    failed = [r for r in results if r["outcome"] not in ("pass", "skipped")]
    causes: dict[str, list[dict]] = defaultdict(list)
    for r in failed:
        tests = read_text(Path(r["record_path"]) / "tests.txt", 50_000) if r.get("record_path") else ""
        causes[failure_cause(r, tests)].append(r)
    signals = Counter()
    for r in failed:
        signals["agent timeout"] += bool(r.get("agent_timeout"))
        signals["cut-off replies"] += int(r.get("cutoffs") or 0)
        signals["tool-format errors"] += int(r.get("tool_format_errors") or 0)
        signals["tool errors"] += int(r.get("tool_errors") or 0)
        signals["server errors"] += bool(r.get("server_error") or (r.get("infra_error") and not r.get("harness_error")))
        signals["harness errors"] += bool(r.get("harness_error"))
        signals["false claims"] += bool(r.get("false_claim"))
        signals["watchdog kills"] += int(r.get("watchdog_kills") or 0)
    ranked = sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {"attempts": len(results), "failed": len(failed), "causes": ranked, "signals": dict(signals)}


def render_triage(run_id: str, results: list[dict]) -> str:
    t = triage(results)
    out = [f"run {run_id}: {t['failed']} of {t['attempts']} attempts did not pass; causes, most frequent first", ""]
    out.append(f"{'cause':28} {'runs':>5}  tasks")
    for cause, rs in t["causes"]:
        names = sorted({f"{r['task']}" + (f"[{r['condition']}]" if len({x['condition'] for x in results}) > 1 else "")
                        for r in rs})
        out.append(f"{cause:28} {len(rs):>5}  {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}")
    sig = {k: v for k, v in t["signals"].items() if v}
    if sig:
        out += ["", "signals across the failed attempts (one attempt can show several):"]
        out += [f"  {k:20} {v}" for k, v in sorted(sig.items(), key=lambda kv: -kv[1])]
    out += ["", f"one task's full evidence: kbench triage {run_id} --task TASK"]
    return "\n".join(out)


def render_evidence(results: list[dict], task: str) -> str:
    rs = [r for r in results if r["task"] == task]
    if not rs:
        raise ValueError(f"no attempts of task {task!r} in this run")
    out = []
    for r in sorted(rs, key=lambda r: (r["condition"], r["seed"])):
        rec = Path(r["record_path"])
        tests = read_text(rec / "tests.txt")
        out += [f"##### {r['task']} {r['condition']} s{r['seed']}: {r['outcome']}"
                + (f" ({failure_cause(r, tests)})" if r["outcome"] not in ("pass", "skipped") else ""),
                f"record {rec}",
                f"time {float(r.get('duration_s') or 0):.1f}s, turns {r.get('turns')}, tokens in {r.get('input_tokens')} "
                f"out {r.get('output_tokens')}, tool calls {r.get('tool_calls')}, tool errors {r.get('tool_errors')}, "
                f"format errors {r.get('tool_format_errors')}, cut-offs {r.get('cutoffs')}, stop {r.get('stop_reason')}"
                + (", false claim" if r.get("false_claim") else ""),
                ]
        if r.get("detail"):
            out.append(f"detail: {visible(r['detail'], layout=False)}")
        if r.get("harness_error"):
            out.append(f"harness: {visible(r['harness_error'], layout=False)}")
        elif r.get("infra_error") or r.get("server_error"):
            out.append(f"server: {visible(r.get('infra_error') or r.get('server_error'), layout=False)}")
        for tried in sorted((rec / "requeued").glob("attempt*.events.jsonl"), key=lambda p: int(p.name[7:-13] or 0)):
            why = next((e.get("reason") for e in read_events(tried) if e.get("type") == "requeue"), "unknown")
            out.append(f"requeued, {tried.name.split('.')[0]}: {visible(why, layout=False)} (its events: {tried})")
        out += ["", "--- conversation", visible(conversation_text(conversation(rec / "events.jsonl"))) or "(no events)",
                "", "--- hidden test output (tests.txt)", visible(tests.rstrip()) or "(none)", "", "--- final files"]
        files = final_files(rec / "workdir")
        if not files:
            out.append("(none)")
        left_out = r.get("files_left_out") or []
        if left_out:
            shown = ", ".join(visible(x, layout=False) for x in left_out[:20])
            out.append(f"not kept in the record ({len(left_out)}): {shown}" + (" ..." if len(left_out) > 20 else ""))
        for f in files:
            path = visible(f["path"], layout=False)
            if f.get("link") is not None:
                out.append(f"--- {path} -> {visible(f['link'], layout=False)} (a link; not followed)")
            else:
                out.append(f"--- {path} ({f['size']} bytes)")
                out.append(visible(f["text"].rstrip()) if f["text"] is not None else "(binary)")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- the commands

def cmd_report(args) -> int:
    results = load_results(Path(args.runs), args.run_id)
    print(visible(render(args.run_id, results, load_manifest(Path(args.runs), args.run_id))))
    return 0


def cmd_collect(args) -> int:
    doc = collect(Path(args.runs), args.run_ids)
    validate_results(doc)
    print(json.dumps(doc, indent=1))
    return 0


def cmd_export(args) -> int:
    if args.db is None and args.run_ids:
        rows = [r for rid in args.run_ids for r in load_results(Path(args.runs), rid)]
    else:
        from kbench_dagster.board_data import load_rows
        from kbench_dagster.store import ResultsStore

        path = Path(args.db or DEFAULT_DB)
        if not path.exists():
            raise ValueError(f"no results store at {path} (give --db, or RUNIDs with --runs)")
        where = "run_id IN (" + ", ".join("?" for _ in args.run_ids) + ")" if args.run_ids else ""
        rows = load_rows(ResultsStore(path), where, list(args.run_ids))
    text = export_rows(rows, args.format)
    if args.out:
        Path(args.out).write_text(text)
        print(f"{len(rows)} rows written to {args.out}", file=sys.stderr)
    else:
        text = visible(text) if sys.stdout.isatty() else text  # a file or pipe gets the data as it is
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_compare(args) -> int:
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
    from kbench_dagster.boards import build_board, serve
    from kbench_dagster.store import ResultsStore

    path = Path(args.db or DEFAULT_DB)
    if not path.exists():
        raise ValueError(f"no results store at {path}: run `kbench run` first, or give --db")
    index = build_board(ResultsStore(path), Path(args.out))
    print(f"board written: {index}")
    if args.serve:
        serve(Path(args.out), port=args.port)
    return 0


def add_report_parsers(sub) -> None:
    """Register report, collect, export, compare, triage and board on the kbench subparsers."""
    s = sub.add_parser("report", help="the tables of one run, with confidence intervals and warnings")
    s.add_argument("run_id", metavar="RUNID")
    s.add_argument("--runs", default="runs")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("collect", help="the report's numbers of runs as JSON (validated against the schema)")
    s.add_argument("run_ids", metavar="RUNID", nargs="+")
    s.add_argument("--runs", default="runs")
    s.set_defaults(func=cmd_collect)

    s = sub.add_parser("export", help="every attempt as CSV or JSON, from the store (or from records with RUNIDs)")
    s.add_argument("run_ids", metavar="RUNID", nargs="*")
    s.add_argument("--format", choices=["csv", "json"], default="csv")
    s.add_argument("--db", help="the results DuckDB (default: the store unless RUNIDs are given)")
    s.add_argument("--runs", default="runs", help="records folder, used with RUNIDs and no --db")
    s.add_argument("--out", help="write to this file instead of stdout")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("compare", help="paired comparison of two runs on the same tasks")
    s.add_argument("run_a", metavar="RUNID_A")
    s.add_argument("run_b", metavar="RUNID_B")
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
    s.add_argument("--serve", action="store_true", help="serve it on 127.0.0.1 after writing")
    s.add_argument("--port", type=int, default=8000)
    s.set_defaults(func=cmd_board)


def main(argv: list[str] | None = None) -> int:
    """Run these commands alone (python -m kbench_dagster.report ...), e.g. before the CLI wires them in."""
    p = argparse.ArgumentParser(prog="kbench")
    add_report_parsers(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"error: {visible(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
