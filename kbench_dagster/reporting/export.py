"""`kbench collect` and `kbench export`: runs' numbers as schema-checked JSON, and every attempt as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from kbench_dagster.ingest import collect_rows
from kbench_dagster.reporting import stats
from kbench_dagster.reporting.loaders import by_condition, load_manifest, load_results, mechanics
from kbench_dagster.reporting.stats import OUTCOMES

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "results.schema.json"
SCHEMA_ID = "kbench-results/1"
EXPORT_COLUMNS = ["run_id", "model", "agent", "condition", "task", "seed", "category", "tier", "outcome", "infra",
                  "infra_error", "requeues", "duration_s", "wall_s", "test_duration_s", "turns", "input_tokens",
                  "output_tokens", "cutoffs", "tool_calls", "native_calls", "text_calls", "tool_errors",
                  "tool_format_errors", "watchdog_kills", "test_kills", "outside_writes", "false_claim",
                  "agent_timeout", "stop_reason", "server_error", "detail", "suite_fingerprint", "isolation",
                  "started_at", "finished_at"]


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
        "tiers": {k: {"passes": v["passes"], "runs": v["runs"], "pass_at_1": v["pass@1"],
                      "pass_at_1_ci": _ci(v["pass@1_ci"])} for k, v in s["tiers"].items()},
        "categories": {k: {"passes": v["passes"], "runs": v["runs"], "pass_at_1": v["pass@1"],
                           "pass_at_1_ci": _ci(v["pass@1_ci"])} for k, v in s["categories"].items()},
        "mechanics": mechanics(rs),
        "false_claims": sum(1 for r in rs if r.get("false_claim")),
        "per_task": {t: {"passes": v["c"], "runs": v["n"], "infra": v["infra"], "category": v["category"],
                         "tier": v["tier"]} for t, v in sorted(tt.items())},
    }


PORTABLE = ("attempts", "gradings", "requests")  # the stored rows a collect file carries for `kbench import`
LOCAL_ONLY = {"record_path", "partition_key"}  # where the records sit on the machine that made them


def collect(runs_root: Path, run_ids: list[str]) -> dict:
    """The report's numbers for each run as one JSON document (schema/results.schema.json), with the rows the store
    holds for it and its manifest, so another machine can import it (kbench_dagster/commands/import_results.py)."""
    runs = []
    for run_id in run_ids:
        results = load_results(runs_root, run_id)
        manifest = load_manifest(runs_root, run_id)
        first = results[0] if results else {}
        stored = collect_rows(Path(runs_root) / run_id)
        extra = {"manifest": manifest} if manifest else {}
        runs.append({**extra, "rows": {t: [{k: _plain(v) for k, v in r.items() if k not in LOCAL_ONLY}
                                           for r in stored[t]] for t in PORTABLE},
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
    """Raise ValueError when doc does not match schema/results.schema.json or holds a number that is not finite."""
    _finite(doc, "results")
    validate_against(doc, SCHEMA_PATH, "results")


def validate_rows(rows: dict, where: str) -> None:
    """Raise ValueError when a run's rows (attempts, gradings, requests) break the schema's row rules; `where` is
    the place the error names (a run folder, say)."""
    schema = json.loads(SCHEMA_PATH.read_text())
    sub = {"$defs": schema["$defs"], **schema["$defs"]["run"]["properties"]["rows"]}
    _finite(rows, f"the rows of {where}")
    _check(rows, sub, f"the rows of {where}", SCHEMA_PATH.name)


def validate_against(doc: dict, schema_path: Path, what: str) -> None:
    """Raise ValueError naming the first place where doc does not match the JSON schema at schema_path."""
    _check(doc, json.loads(schema_path.read_text()), what, schema_path.name)


def _check(doc: dict, schema: dict, what: str, name: str) -> None:
    try:
        import jsonschema
    except ImportError as exc:  # the dev install carries it; say so plainly rather than skip the check
        raise ValueError(f"the jsonschema package is needed to validate {what} (pip install jsonschema)") from exc
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        place, message = "/".join(map(str, e.path)), e.message
        extra = sorted(set(e.instance) - set(e.schema.get("properties", {}))) \
            if e.validator == "additionalProperties" and isinstance(e.instance, dict) else []
        if extra:  # name the field itself, as the other errors do
            place = f"{place}/{extra[0]}".lstrip("/")
            message = ("a host path or store key of the machine that made the file: never imported"
                       if extra[0] in LOCAL_ONLY else "not a field of this row or object")
        raise ValueError(f"{what} do not match {name}: {place}: {message}"
                         + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))


def _finite(doc, what: str) -> None:
    """Raise ValueError naming the first NaN or infinite number in doc: JSON's NaN and Infinity (and 1e400) pass a
    schema's bounds, since no comparison holds for them."""
    bad = _not_finite(doc)
    if bad is not None:
        raise ValueError(f"{what} do not match {SCHEMA_PATH.name}: {bad}: not a finite number")


def _not_finite(doc) -> str | None:
    """The path of the first float in doc that is NaN or infinite, or None; walked without recursion."""
    stack = [("", doc)]
    while stack:
        place, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return place.lstrip("/")
        if isinstance(v, dict):
            stack += [(f"{place}/{k}", x) for k, x in reversed(v.items())]
        elif isinstance(v, list):
            stack += [(f"{place}/{i}", x) for i, x in reversed(list(enumerate(v)))]
    return None


def export_rows(rows: list[dict], fmt: str) -> str:
    cols = EXPORT_COLUMNS + sorted({k for r in rows for k in r} - set(EXPORT_COLUMNS)
                                   - {"final_message", "outside_write_paths", "files_left_out", "record_path"})
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
