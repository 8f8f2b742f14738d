"""What the registry knows of the text jobs (sandbox/engine/registry.py); the kind is sandbox/chatwork/textjobs.py."""

from __future__ import annotations

from sandbox.engine.registry import REPLY_CHARS, KindCard, RowSource, named_personas

NAME = "textjobs"
REPLY = "reply.txt"
COLUMNS = {
    "run_id": "VARCHAR", "model": "VARCHAR", "condition": "VARCHAR", "seed": "INTEGER", "job": "VARCHAR",
    "family": "VARCHAR", "item": "VARCHAR", "outcome": "VARCHAR", "parse": "VARCHAR", "score": "DOUBLE",
    "passed": "BOOLEAN", "tp": "INTEGER", "n_pred": "INTEGER", "n_gold": "INTEGER", "expected": "VARCHAR",
    "predicted": "VARCHAR", "fields": "JSON", "note": "VARCHAR", "prompt": "VARCHAR", "reply": "VARCHAR",
    "input_tokens": "BIGINT", "output_tokens": "BIGINT", "reasoning_effort": "VARCHAR", "reasoned": "BOOLEAN",
    "duration_s": "DOUBLE", "infra_error": "VARCHAR",
    "suite_fingerprint": "VARCHAR", "graded_at": "TIMESTAMP", "started_at": "TIMESTAMP", "finished_at": "TIMESTAMP"}


def textjob_rows(src: RowSource) -> dict[str, list[dict]]:
    """A textjob_replies row: the item's score with its latest grading applied, its prompt and the reply kept."""
    r = src.result
    t = r.get("textjob") or {}
    job, _, item = r["task"].partition(".")
    prompt = next((ev.get("messages") for ev in src.record.events() if ev.get("type") == "request"), None)
    return {"textjob_replies": [{
        **{c: r.get(c) for c in ("run_id", "model", "condition", "seed", "outcome", "input_tokens", "output_tokens",
                                 "reasoning_effort", "reasoned", "duration_s", "infra_error", "suite_fingerprint",
                                 "graded_at", "started_at", "finished_at")},
        "job": job, "family": r.get("tier"), "item": item,
        **{c: t.get(c) for c in ("parse", "score", "passed", "tp", "n_pred", "n_gold", "expected", "predicted",
                                 "fields", "note")},
        "prompt": prompt[-1]["content"] if prompt else None,
        "reply": src.record.file_text("reply.txt", REPLY_CHARS)}]}


def _kind(suite: str):
    from sandbox.chatwork.textjobs import TextJobs

    return TextJobs()


CARD = KindCard(name=NAME, table="textjob_replies", make=_kind, rows=textjob_rows, columns=COLUMNS,
                personas=named_personas("sandbox.chatwork.oracle:TextJobPersona", "oracle", "noisy"),
                board="kbench_dagster.reporting.board_language:textjob_pages",
                board_menu=(("Text jobs", "textjobs.html"),))
