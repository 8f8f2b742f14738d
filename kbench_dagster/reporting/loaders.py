"""A run's finished results and manifest from its records, the runs of one suite, and the groupings every report
shares."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from sandbox.engine.attempt_folders import check_run_id
from sandbox.engine.attempt_reader import records_of


def run_dir(runs_root: Path, run_id: str) -> Path:
    """A run's records folder; an id that names none is an error saying where to look."""
    folder = Path(runs_root) / check_run_id(run_id)
    if not folder.is_dir():
        raise ValueError(f"no run {run_id!r} in {runs_root} (see `ls {runs_root}`)")
    return folder


def load_results(runs_root: Path, run_id: str) -> list[dict]:
    """Every finished attempt of a run with its current verdict (a regrading wins over the first grading)."""
    out = []
    for record in records_of(run_dir(runs_root, run_id)):
        r = record.result()
        r["record_path"] = record.where
        out.append(r)
    return out


def load_manifest(runs_root: Path, run_id: str) -> dict | None:
    p = Path(runs_root) / run_id / "manifest.json"
    return json.loads(p.read_text()) if p.exists() else None


def runs_of_suite(runs_root: Path, suite: str, run_ids: list[str] | None = None) -> dict[str, dict]:
    """The runs among run_ids (None: every run folder under runs_root with a manifest) whose manifest names `suite`,
    with their manifests. Finding none is an error naming the suites those runs are of: an empty table would read
    as a suite that has no results."""
    runs_root = Path(runs_root)
    if run_ids is None:
        found = sorted(p.name for p in runs_root.iterdir() if (p / "manifest.json").is_file()) \
            if runs_root.is_dir() else []
    else:
        found = [run_dir(runs_root, rid).name for rid in run_ids]  # a RUNID that names no run says so first
    manifests = {rid: load_manifest(runs_root, rid) or {} for rid in found}
    names = {rid: (m.get("suite") or {}).get("name") for rid, m in manifests.items()}
    wanted = Path(suite).name  # a suite given as a folder is recorded under the folder's own name (task_defs/loader.py)
    kept = {rid: manifests[rid] for rid, name in names.items() if name == wanted}
    if not kept:
        where = f"among {', '.join(found)}" if run_ids is not None else f"in {runs_root}"
        seen = ", ".join(sorted({n or "? (none recorded)" for n in names.values()}))
        raise ValueError(f"no run of suite {suite!r} {where}"
                         + (f"; the suites of the runs there: {seen}" if seen else ": no runs there"))
    return kept


def by_condition(results: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        out[r["condition"]].append(r)
    return dict(sorted(out.items()))


def mechanics(rs: list[dict]) -> dict:
    """What the agents of these attempts did, summed (or averaged per attempt that ran): the mechanics table of
    `kbench report` and each condition's `mechanics` in `kbench collect`."""
    # A skipped attempt (a requirement missing) ran no session and holds zero counts: as a run in the means it
    # would pull mean time and turns down, and the pass rates count it nowhere either (stats.py).
    ran = [r for r in rs if r.get("outcome") != "skipped"]
    n = len(ran) or 1
    total = lambda key: sum(int(r.get(key) or 0) for r in rs)  # noqa: E731
    return {"mean_time_s": sum(float(r.get("duration_s") or 0) for r in ran) / n, "turns": total("turns"),
            "mean_turns": total("turns") / n, "output_tokens": total("output_tokens"),
            "input_tokens": total("input_tokens"), "cutoffs": total("cutoffs"),
            # calls that ran; native and text are the forms they came in (a constrained call is neither)
            "tool_calls": total("tool_calls"), "native_calls": total("native_calls"), "text_calls": total("text_calls"),
            "tool_errors": total("tool_errors"), "tool_format_errors": total("tool_format_errors"),
            # kills in the agent's sessions and in the hidden test's are counted apart: a test killed for its
            # processes is the agent's code misbehaving under the test, not the agent's session itself
            "watchdog_kills": total("watchdog_kills"), "test_kills": total("test_kills"),
            "outside_write_runs": sum(1 for r in rs if r.get("outside_writes")),
            "false_claims": sum(1 for r in rs if r.get("false_claim"))}
