"""The capability items as the registry sees them; their kind is sandbox/chatwork/capability.py."""

from __future__ import annotations

import json

from sandbox.engine.registry import REPLY_CHARS, KindCard, RowSource

NAME = "capability"
COLUMNS = {
    "run_id": "VARCHAR", "model": "VARCHAR", "condition": "VARCHAR", "seed": "INTEGER", "item": "VARCHAR",
    "category": "VARCHAR", "tier": "VARCHAR", "grader": "VARCHAR", "outcome": "VARCHAR", "score": "DOUBLE",
    "refusal": "BOOLEAN", "checks": "JSON", "judge": "JSON", "context_tokens": "INTEGER", "latency_budget_s": "DOUBLE",
    "detail": "VARCHAR",
    "reply": "VARCHAR", "sampling": "VARCHAR", "reasoning_effort": "VARCHAR", "reasoned": "BOOLEAN",
    "duration_s": "DOUBLE", "input_tokens": "BIGINT",
    "output_tokens": "BIGINT", "infra_error": "VARCHAR", "suite_fingerprint": "VARCHAR", "graded_at": "TIMESTAMP",
    "endpoint": "VARCHAR", "engine": "VARCHAR", "quant": "VARCHAR", "hardware": "VARCHAR",
    "hardware_class": "VARCHAR"}


def capability_rows(src: RowSource) -> dict[str, list[dict]]:
    """A capability_results row: the item's score with its latest grading applied (a regrade with a judge grades
    the pending ones), its checks, the judge's votes and the final reply kept."""
    r = src.result
    c = r.get("capability") or {}
    kept = src.record.file_text("replies.json", 4 * REPLY_CHARS)
    try:
        replies = json.loads(kept).get("replies") if kept else None
    except ValueError:  # cut at the store's limit
        replies = None
    return {"capability_results": [{
        **{k: r.get(k) for k in ("run_id", "model", "condition", "seed", "outcome", "sampling", "reasoning_effort",
                                 "reasoned", "duration_s", "input_tokens", "output_tokens", "infra_error",
                                 "suite_fingerprint", "graded_at", "detail")},
        "item": r["task"], "category": c.get("category") or r.get("category"),
        "tier": c.get("tier") or r.get("tier"), "grader": c.get("grader"), "score": c.get("score"),
        "refusal": c.get("refusal"), "checks": json.dumps(c.get("checks")) if c.get("checks") is not None else None,
        "judge": json.dumps(c.get("judge")) if c.get("judge") is not None else None,
        "context_tokens": c.get("context_tokens"), "latency_budget_s": c.get("latency_budget_s"),
        "reply": (replies[-1] if replies else None) and replies[-1][:REPLY_CHARS], **src.endpoint}]}


def _persona(name: str):
    if name != "oracle":
        return None
    from sandbox.chatwork.capability import CapabilityPersona

    return CapabilityPersona()


def _kind(suite: str):
    from sandbox.chatwork.capability import CapabilityItems

    return CapabilityItems()


CARD = KindCard(name=NAME, table="capability_results", make=_kind, rows=capability_rows, columns=COLUMNS,
                run_suffix=False, personas=_persona, board="kbench_dagster.reporting.board_capability:capability_pages",
                board_menu=(("Thinks", "thinks.html"), ("Ships", "ships.html"), ("Judge bias", "judge-bias.html")))
