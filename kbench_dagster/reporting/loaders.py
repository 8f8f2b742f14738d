"""A run's finished results and manifest from its records, and the groupings every report shares."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from sandbox.engine.attempt_folders import check_run_id
from sandbox.engine.attempt_reader import records_of


def load_results(runs_root: Path, run_id: str) -> list[dict]:
    """Every finished attempt of a run with its current verdict (a regrading wins over the first grading)."""
    run_dir = Path(runs_root) / check_run_id(run_id)
    if not run_dir.is_dir():
        raise ValueError(f"no run {run_id!r} in {runs_root} (see `ls {runs_root}`)")
    out = []
    for record in records_of(run_dir):
        r = record.result()
        r["record_path"] = record.where
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
