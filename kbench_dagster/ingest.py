"""From run records on disk to store rows: the one path both `kbench run` and the Dagster assets use."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from kbench_dagster.store import ATTEMPT_COLUMNS, ResultsStore, RunManifest
from sandbox.engine.attempt_records import AttemptRecord, done_keys, records_of

KERNELS = "kernels"  # gpu.kind.NAME: kernel results go to their own table
TEXTJOBS = "textjobs"  # sandbox.chatwork.textjobs.NAME: one row per item reply in textjob_replies
BREAKDOWN = "breakdown-"  # sandbox.chatwork.breakdown kind names: one row per item answer in breakdown_answers
TRIALS = "trials"  # sandbox.chatwork.trials.NAME: one row per trial answer in trial_results
CAPABILITY = "capability"  # sandbox.chatwork.capability.NAME: one row per item reply in capability_results
ALL_TABLES = ("attempts", "gradings", "kernel_gradings", "textjob_replies", "breakdown_answers", "trial_results",
              "capability_results", "runs", "events_summary", "requests")
SPEED_FIELDS = ("stream", "finish", "ttft_s", "queued_s", "total_s", "gen_s", "prompt_tokens", "completion_tokens",
                "gen_tok_s", "server_prompt_tok_s", "server_gen_tok_s")
REPLY_CHARS = 20_000  # what the store keeps of one reply (the record keeps it whole)


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


def grading_row(r: dict) -> dict:
    """A gradings row from a result with its latest regrading applied (sandbox.engine.records.read_result)."""
    return {"run_id": r["run_id"], "model": r["model"], "condition": r["condition"], "task": r["task"],
            "seed": r["seed"], "outcome": r["outcome"], "detail": r.get("detail"),
            "test_duration_s": r.get("test_duration_s"), "suite_fingerprint": r["suite_fingerprint"],
            "regraded": r["regraded"], "graded_at": r["graded_at"]}


def collect_rows(run_dir: Path, condition: str | None = None, seed: int | None = None) -> dict[str, list[dict]]:
    """Rows for every table from one run's records. Agent tasks fill attempts and gradings; kernel tasks fill
    kernel_gradings, text jobs textjob_replies and the breakdown breakdown_answers (each has board pages of its
    own, and none mixes into the agent tasks' pass@1)."""
    run_dir = Path(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text()) if (run_dir / "manifest.json").exists() else {}
    url = manifest.get("settings", {}).get("url")
    where = endpoint_fields(manifest)
    attempts, gradings, kernels, texts, answers, events, every, requests = [], [], [], [], [], [], [], []
    trials, capability = [], []
    for record in records_of(run_dir):
        r = record.recorded()  # as the run recorded it; its current verdict goes to gradings
        if (condition and r["condition"] != condition) or (seed is not None and r["seed"] != seed):
            continue
        every.append(r)
        if r.get("kind") == KERNELS:
            kernels.append(kernel_row(record.result()))
        elif r.get("kind") == TEXTJOBS:
            texts.append(textjob_row(record.result(), record))
        elif str(r.get("kind")).startswith(BREAKDOWN):
            answers += breakdown_rows(record.result())
        elif r.get("kind") == TRIALS:
            trials.append(trial_row(record.result(), where, record))
        elif r.get("kind") == CAPABILITY:
            capability.append(capability_row(record.result(), where, record))
        else:
            row = {c: r.get(c) for c in ATTEMPT_COLUMNS if c in r}
            row.update(server_url=url, record_path=record.where, **where)
            attempts.append(row)
            gradings.append(grading_row(record.result()))
        speed: list[dict] = []
        events.append({"run_id": r["run_id"], "condition": r["condition"], "task": r["task"], "seed": r["seed"],
                       **_events_summary(record, speed)})
        requests += [{**{c: r.get(c) for c in ("run_id", "model", "agent", "kind", "condition", "task", "seed")},
                      "n": n, "server_url": url, "endpoint": where["endpoint"], "engine": where["engine"],
                      "hardware_class": where["hardware_class"], **timing} for n, timing in enumerate(speed, 1)]
    runs = []
    if every:
        first = every[0]
        runs.append({"run_id": first["run_id"], "model": first["model"], "agent": first["agent"],
                     "condition": condition, "seed": seed, "server_url": url,
                     "suite_fingerprint": first["suite_fingerprint"], "attempts": len(every),
                     "infra_failures": sum(bool(a.get("infra")) for a in every),
                     "started_at": min(a["started_at"] for a in every),
                     "finished_at": max(a["finished_at"] for a in every)})
    return {"attempts": attempts, "gradings": gradings, "kernel_gradings": kernels, "textjob_replies": texts,
            "breakdown_answers": answers, "trial_results": trials, "capability_results": capability, "runs": runs,
            "events_summary": events,
            "requests": requests}


def endpoint_fields(manifest: dict) -> dict:
    """What every row of a run says of its endpoint (the manifest's record; None for runs made before it)."""
    e = manifest.get("endpoint") or {}
    return {"endpoint": e.get("name"), "engine": e.get("engine"), "quant": e.get("quant"),
            "hardware": e.get("hardware"), "hardware_class": e.get("hardware_class")}


def store_cell(store: ResultsStore, run_dir: Path, condition: str, seed: int, key: str,
               tables: tuple[str, ...] = ALL_TABLES) -> dict[str, int]:
    """One cell of a run into the store under `key` (delete-then-insert), with the run's manifest and its named
    endpoint's description: one transaction, all or nothing."""
    rows = collect_rows(run_dir, condition, seed)
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


def kernel_row(r: dict) -> dict:
    """A kernel_gradings row from a kernel task's result with its latest grading applied."""
    k = r.get("kernel") or {}
    d = k.get("device") or {}
    return {**{c: r.get(c) for c in ("run_id", "model", "agent", "condition", "seed", "task", "outcome", "turns",
                                      "tool_calls", "tool_format_errors", "duration_s", "started_at", "finished_at",
                                      "suite_fingerprint", "graded_at", "infra_error")},
            "family": r.get("tier"), "status": k.get("status") or ("infra" if r.get("infra") else None),
            "reason": k.get("reason") or r.get("detail"), "score": k.get("score"), "unit": k.get("unit"),
            "correct": k.get("correct"), "device_kind": d.get("kind"), "device_name": d.get("name"),
            "sm_count": d.get("sm_count"), "clocks": d.get("clocks_mhz"), "driver": d.get("driver"),
            "cuda": d.get("cuda"), "torch": d.get("torch"), "triton": d.get("triton")}


def textjob_row(r: dict, record: AttemptRecord) -> dict:
    """A textjob_replies row: the item's score with its latest grading applied, its prompt and the reply kept."""
    t = r.get("textjob") or {}
    job, _, item = r["task"].partition(".")
    prompt = next((ev.get("messages") for ev in record.events() if ev.get("type") == "request"), None)
    return {**{c: r.get(c) for c in ("run_id", "model", "condition", "seed", "outcome", "input_tokens",
                                      "output_tokens", "duration_s", "infra_error", "suite_fingerprint",
                                      "graded_at", "started_at", "finished_at")},
            "job": job, "family": r.get("tier"), "item": item,
            **{c: t.get(c) for c in ("parse", "score", "passed", "tp", "n_pred", "n_gold", "expected", "predicted",
                                     "fields", "note")},
            "prompt": prompt[-1]["content"] if prompt else None,
            "reply": record.file_text("reply.txt", REPLY_CHARS)}


def trial_row(r: dict, where: dict, record: AttemptRecord) -> dict:
    """A trial_results row: the trial's verdict with its latest grading applied, the endpoint it ran on, and the
    kept exchange (the replies as the server sent them: the evidence the board shows)."""
    t = r.get("trial") or {}
    return {**{c: r.get(c) for c in ("run_id", "model", "condition", "seed", "outcome", "sampling", "duration_s",
                                      "infra_error", "suite_fingerprint", "graded_at")},
            "trial": r["task"], "family": r.get("category"), "grade": r.get("tier"), "oracle": t.get("oracle"),
            "score": t.get("score"), "cause": t.get("cause"), "detail": r.get("detail"),
            "forms": ",".join(t.get("forms") or []), "ttft_s": r.get("ttft_s"),
            **{c: t.get(c) for c in ("shape", "response_format", "elicitation", "rules", "rounds")},
            "exchange": record.file_text("reply.json", REPLY_CHARS), **where}


def capability_row(r: dict, where: dict, record: AttemptRecord) -> dict:
    """A capability_results row: the item's score with its latest grading applied (a regrade with a judge grades
    the pending ones), its checks, the judge's votes and the final reply kept."""
    c = r.get("capability") or {}
    kept = record.file_text("replies.json", 4 * REPLY_CHARS)
    try:
        replies = json.loads(kept).get("replies") if kept else None
    except ValueError:  # cut at the store's limit
        replies = None
    return {**{k: r.get(k) for k in ("run_id", "model", "condition", "seed", "outcome", "sampling", "duration_s",
                                      "input_tokens", "output_tokens", "infra_error", "suite_fingerprint",
                                      "graded_at", "detail")},
            "item": r["task"], "category": c.get("category") or r.get("category"), "tier": c.get("tier") or
            r.get("tier"), "grader": c.get("grader"), "score": c.get("score"), "refusal": c.get("refusal"),
            "checks": json.dumps(c.get("checks")) if c.get("checks") is not None else None,
            "judge": json.dumps(c.get("judge")) if c.get("judge") is not None else None,
            "context_tokens": c.get("context_tokens"),
            "reply": (replies[-1] if replies else None) and replies[-1][:REPLY_CHARS], **where}


def breakdown_rows(r: dict) -> list[dict]:
    """One breakdown_answers row per item a unit answered (an infra attempt: one row per item it should have)."""
    b = r.get("breakdown") or {}
    base = {**{c: r.get(c) for c in ("run_id", "model", "agent", "condition", "seed", "outcome", "infra_error",
                                      "suite_fingerprint", "graded_at")},
            "way": r.get("category"), "wording": r.get("tier")}
    job = b.get("job") or r["task"].partition(".")[0]
    items = b.get("items") or {r["task"].partition(".")[2] or r["task"]: {"parse": None, "right": None}}
    return [{**base, "job": job, "item": item, "parse": v["parse"], "right": v["right"], "answer": v.get("answer")}
            for item, v in items.items()]
