"""From run records on disk to store rows: the one path both `kbench run` and the Dagster assets use."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from kbench_dagster.store import ResultsStore, RunManifest
from kbench_dagster.store_schema import all_tables
from sandbox.engine.attempt_reader import AttemptRecord, done_keys, records_of
from sandbox.engine.registry import RowSource, card

SPEED_FIELDS = ("stream", "finish", "ttft_s", "queued_s", "total_s", "gen_s", "prompt_tokens", "completion_tokens",
                "gen_tok_s", "server_prompt_tok_s", "server_gen_tok_s")


def cell_of(condition: str, seed: int) -> str:
    return f"{condition}.s{seed}"


def write_key(run_id: str, cell: str) -> str:
    """The unit a write replaces: one run's one cell (condition and seed)."""
    return f"{run_id}/{cell}"


def _events_summary(record: AttemptRecord, speed: list[dict]) -> dict:
    """Counts of an attempt's events; its requests' timings (sandbox/agents/wire.py) go into `speed`."""
    kinds: Counter = Counter()
    size = record.events_bytes()
    for ev in record.events():
        kind = ev.get("type")
        if kind == "speed":
            speed.append({f: ev.get(f) for f in SPEED_FIELDS})
        if kind == "pi":  # pi's own stream: count by its event types
            inner = ev.get("event", {})
            kind = {"message_end": "reply" if inner.get("message", {}).get("role") == "assistant" else None,
                    "tool_execution_start": "tool_call", "tool_execution_end": "tool_result"}.get(inner.get("type"))
        kinds[kind] += 1
    return {"events": sum(kinds.values()), "prompts": kinds["prompt"], "replies": kinds["assistant"] + kinds["reply"],
            "tool_calls": kinds["tool_call"], "tool_results": kinds["tool_result"],
            "errors": kinds["error"] + kinds["tool_format_error"], "bytes": size}


def collect_rows(run_dir: Path, condition: str | None = None, seed: int | None = None) -> dict[str, list[dict]]:
    """Rows for every table from one run's records: each attempt's kind (sandbox/engine/registry.py) maps it to the
    rows of its own tables (agent tasks: attempts and gradings; every other kind a table of its own, so none mixes
    into the agent tasks' pass@1), and every attempt adds its events summary and its requests."""
    run_dir = Path(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text()) if (run_dir / "manifest.json").exists() else {}
    url = manifest.get("settings", {}).get("url")
    where = endpoint_fields(manifest)
    out: dict[str, list[dict]] = {t: [] for t in all_tables()}
    every = []
    for record in records_of(run_dir):
        r = record.recorded()  # as the run recorded it; its current verdict goes to the kind's own table
        if (condition and r["condition"] != condition) or (seed is not None and r["seed"] != seed):
            continue
        every.append(r)
        mapped = card(str(r.get("kind") or "")).rows(RowSource(record.result(), r, record, where, url))
        for table, rows in mapped.items():
            out[table] += rows
        speed: list[dict] = []
        out["events_summary"].append({"run_id": r["run_id"], "condition": r["condition"], "task": r["task"],
                                      "seed": r["seed"], **_events_summary(record, speed)})
        out["requests"] += [{**{c: r.get(c) for c in ("run_id", "model", "agent", "kind", "condition", "task", "seed")},
                             "n": n, "server_url": url, "endpoint": where["endpoint"], "engine": where["engine"],
                             "hardware_class": where["hardware_class"], **timing} for n, timing in enumerate(speed, 1)]
    if every:
        first = every[0]
        out["runs"].append({"run_id": first["run_id"], "model": first["model"], "agent": first["agent"],
                            "condition": condition, "seed": seed, "server_url": url,
                            "suite_fingerprint": first["suite_fingerprint"], "attempts": len(every),
                            "infra_failures": sum(bool(a.get("infra")) for a in every),
                            "started_at": min(a["started_at"] for a in every),
                            "finished_at": max(a["finished_at"] for a in every)})
    return out


def endpoint_fields(manifest: dict) -> dict:
    """What every row of a run says of its endpoint (the manifest's record; None for runs made before it)."""
    e = manifest.get("endpoint") or {}
    return {"endpoint": e.get("name"), "engine": e.get("engine"), "quant": e.get("quant"),
            "hardware": e.get("hardware"), "hardware_class": e.get("hardware_class")}


def store_cell(store: ResultsStore, run_dir: Path, condition: str, seed: int, key: str,
               tables: tuple[str, ...] | None = None) -> dict[str, int]:
    """One cell of a run into the store under `key` (delete-then-insert; every table unless `tables` names some),
    with the run's manifest and its named endpoint's description: one transaction, all or nothing."""
    rows = collect_rows(run_dir, condition, seed)
    tables = tables or tuple(rows)
    path = Path(run_dir) / "manifest.json"
    manifests = [RunManifest(json.loads(path.read_text()))] if path.exists() else []
    return store.replace_partitions({key: {t: rows[t] for t in tables}}, manifests)


def keep_manifest(store: ResultsStore, manifest: dict) -> None:
    """The run's manifest, and its named endpoint's description as the run found it."""
    store.upsert_manifest(RunManifest(manifest))


def cells_of(run_dir: Path) -> list[tuple[str, int]]:
    """(condition, seed) of every cell with a finished attempt."""
    return sorted({(cond, int(seed[1:])) for cond, _, seed in (k.split("/") for k in done_keys(run_dir))})


def ingest_run(store: ResultsStore, runs_root: Path, run_id: str) -> dict[str, int]:
    """Write every cell of a run into the store (each cell delete-then-insert) and its manifest."""
    run_dir = Path(runs_root) / run_id
    totals: Counter = Counter()
    with store.opened_ahead():  # while the records are read
        cells = cells_of(run_dir)
        for condition, seed in cells:
            totals.update(store_cell(store, run_dir, condition, seed, write_key(run_id, cell_of(condition, seed))))
        if not cells and (run_dir / "manifest.json").exists():
            keep_manifest(store, json.loads((run_dir / "manifest.json").read_text()))
    return dict(totals)
