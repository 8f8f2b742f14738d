"""`kbench runs`: the saved runs of a records folder, one line each (id, suite, model, endpoint, agent, when,
attempts, pass@1), and `kbench runs show RUNID`: one run as its records have it (settings, status against its plan,
timings, outcomes, each attempt with the files it changed and where its verification's output is, and the warnings
that keep it from being published). Like `report`, it reads the records, not the store."""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from kbench_dagster.reporting import stats
from kbench_dagster.reporting.loaders import load_manifest, load_results
from kbench_dagster.reporting.stats import fmt_pct
from kbench_dagster.terminal import visible

TIMINGS = ("setup_s", "agent_s", "test_s")  # an attempt's stages worth a line each


def _planned(manifest: dict) -> int | None:
    s = manifest.get("settings") or {}
    seeds = s.get("seeds")
    seeds = len(seeds) if isinstance(seeds, list) else int(seeds or 1)
    n = len(s.get("tasks") or []) * len(s.get("conditions") or []) * seeds
    return n or None


def _endpoint(manifest: dict) -> str:
    ep = manifest.get("endpoint") or {}
    return str(ep.get("name") or (manifest.get("settings") or {}).get("url") or "?")


def run_summary(runs: Path, run_id: str) -> dict:
    """One run's line: what it was, when, how far it got and its task-balanced pass@1."""
    manifest = load_manifest(runs, run_id) or {}
    results = load_results(runs, run_id)
    s = manifest.get("settings") or {}
    planned = _planned(manifest)
    return {"run_id": run_id, "suite": (manifest.get("suite") or {}).get("name") or
            next((r.get("kind") for r in results), "?"), "model": s.get("model") or "?", "agent": s.get("agent") or "?",
            "endpoint": _endpoint(manifest), "created": manifest.get("created") or "?", "attempts": len(results),
            "planned": planned, "pass@1": stats.balanced_mean(stats.task_table(results))}


def saved_runs(runs: Path) -> list[dict]:
    """Every run folder with a manifest under `runs`, newest first; one that cannot be read says why."""
    out = []
    for folder in sorted(p for p in runs.iterdir() if (p / "manifest.json").is_file()) if runs.is_dir() else []:
        try:
            out.append(run_summary(runs, folder.name))
        except (OSError, ValueError) as exc:
            out.append({"run_id": folder.name, "error": str(exc)})
    return sorted(out, key=lambda r: r.get("created") or "", reverse=True)


def render_runs(rows: list[dict]) -> str:
    head = f"{'run':28} {'suite':14} {'model':24} {'endpoint':18} {'agent':8} {'created':19} {'attempts':>9} pass@1"
    lines = [head]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['run_id']:28} (records not readable: {r['error']})")
            continue
        done = f"{r['attempts']}/{r['planned']}" if r["planned"] else str(r["attempts"])
        lines.append(f"{r['run_id']:28} {r['suite'][:14]:14} {r['model'][:24]:24} {r['endpoint'][:18]:18} "
                     f"{r['agent'][:8]:8} {r['created'][:19]:19} {done:>9} {fmt_pct(r['pass@1'])}")
    return "\n".join(lines)


def _status(summary: dict) -> str:
    if summary["planned"] is None:
        return f"{summary['attempts']} attempts recorded (no plan in the manifest)"
    if summary["attempts"] >= summary["planned"]:
        return f"complete: {summary['attempts']} of {summary['planned']} planned attempts recorded"
    return (f"partial: {summary['attempts']} of {summary['planned']} planned attempts recorded (`kbench run "
            f"{summary['run_id']} ...` again resumes it)")


def render_show(runs: Path, run_id: str) -> str:
    manifest = load_manifest(runs, run_id) or {}
    results = sorted(load_results(runs, run_id), key=lambda r: (r["condition"], r["task"], r.get("seed") or 0))
    summary = run_summary(runs, run_id)
    s = manifest.get("settings") or {}
    conds = [c.get("name", c) if isinstance(c, dict) else c for c in s.get("conditions") or []]
    suite = manifest.get("suite") or {}
    out = [f"run {run_id}: {summary['suite']} ({suite.get('tasks', '?')} tasks, fingerprint "
           f"{str(suite.get('fingerprint', '?'))[:16]}), created {summary['created']}",
           f"model {summary['model']} at {summary['endpoint']}, agent {summary['agent']}, conditions "
           f"{', '.join(map(str, conds)) or '?'}, seeds {s.get('seeds', '?')}, workers {s.get('workers', '?')}, "
           f"timeout {s.get('timeout_s', '?')} s, isolation {s.get('isolation', '?')}",
           f"status: {_status(summary)}",
           f"outcomes: {', '.join(f'{o} {n}' for o, n in Counter(r['outcome'] for r in results).most_common())}; "
           f"pass@1 {fmt_pct(summary['pass@1'])} (task-balanced)"]
    stages = {k: [float((r.get("stages") or {}).get(k) or 0) for r in results] for k in TIMINGS}
    walls = [float(r.get("wall_s") or 0) for r in results]
    if results:
        out.append("timings (median per attempt): " + ", ".join(
            f"{k[:-2]} {statistics.median(v):.1f} s" for k, v in stages.items()) +
            f", wall {statistics.median(walls):.1f} s; wall in all {sum(walls):.0f} s")
    out += ["", f"{'condition':10} {'task':30} {'seed':>4} {'outcome':9} {'wall s':>7} {'changed':>7}  verification"]
    for r in results:
        changed = r.get("changed_files") or []
        tests = Path(r.get("record_path") or "") / "tests.txt"
        out.append(f"{r['condition'][:10]:10} {r['task'][:30]:30} {r.get('seed') or '-':>4} {r['outcome']:9} "
                   f"{float(r.get('wall_s') or 0):7.1f} {len(changed):>7}  {tests if tests.is_file() else '-'}")
        if changed:
            named = [f"{c.get('path')} ({c.get('change')})" if isinstance(c, dict) else str(c) for c in changed[:8]]
            out.append(f"{'':54}changed: {', '.join(named)}{' ...' if len(changed) > 8 else ''}")
    warns = stats.publishability(results, [manifest] if manifest else None)
    if warns:
        out += ["", "not ready to publish:"] + [f"  - {w['message']}" for w in warns]
    return "\n".join(out)


def cmd_runs(args) -> int:
    runs = Path(args.runs)
    if args.action == "show":
        if not args.run_id:
            print("kbench runs show needs a RUNID (kbench runs lists them)", file=sys.stderr)
            return 2
        print(visible(render_show(runs, args.run_id)))
        return 0
    rows = saved_runs(runs)
    if args.json:
        print(json.dumps(rows, indent=1))
    elif not rows:
        print(f"no saved runs in {runs} (a run folder holds manifest.json; --runs DIR names another folder)")
    else:
        print(visible(render_runs(rows)))
    return 0


def add_runs_parser(sub) -> None:
    s = sub.add_parser("runs", help="the saved runs of a records folder; `runs show RUNID`: one run's settings, "
                                    "status, timings and attempts")
    s.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    s.add_argument("run_id", metavar="RUNID", nargs="?")
    s.add_argument("--runs", default="runs", help="the records folder (default ./runs)")
    s.add_argument("--json", action="store_true", help="the list as JSON")
    s.set_defaults(func=cmd_runs)
