"""The breakdown as the registry sees it: one card for its ways and wordings (sandbox/chatwork/breakdown.py)."""

from __future__ import annotations

from sandbox.engine.registry import KindCard, RowSource, named_personas

PREFIX = "breakdown-"  # a kind's name is breakdown-WAY-WORDING: manifests say which way and wording a run was
COLUMNS = {
    "run_id": "VARCHAR", "model": "VARCHAR", "agent": "VARCHAR", "way": "VARCHAR", "wording": "VARCHAR",
    "condition": "VARCHAR", "seed": "INTEGER", "job": "VARCHAR", "item": "VARCHAR", "parse": "VARCHAR",
    "right": "BOOLEAN", "outcome": "VARCHAR", "infra_error": "VARCHAR", "suite_fingerprint": "VARCHAR",
    "graded_at": "TIMESTAMP", "answer": "VARCHAR"}


def breakdown_rows(src: RowSource) -> dict[str, list[dict]]:
    """One breakdown_answers row per item a unit answered (an infra attempt: one row per item it should have)."""
    r = src.result
    b = r.get("breakdown") or {}
    base = {**{c: r.get(c) for c in ("run_id", "model", "agent", "condition", "seed", "outcome", "infra_error",
                                      "suite_fingerprint", "graded_at")},
            "way": r.get("category"), "wording": r.get("tier")}
    job = b.get("job") or r["task"].partition(".")[0]
    items = b.get("items") or {r["task"].partition(".")[2] or r["task"]: {"parse": None, "right": None}}
    return {"breakdown_answers": [{**base, "job": job, "item": item, "parse": v["parse"], "right": v["right"],
                                   "answer": v.get("answer")} for item, v in items.items()]}


def _kind(suite: str):
    from sandbox.chatwork.breakdown import breakdown_kind

    return breakdown_kind(suite)


# the family's runs are named breakdown-WAY-WORDING; the scripted server answers all of them as "breakdown"
CARD = KindCard(name=PREFIX.rstrip("-"), table="breakdown_answers", make=_kind, rows=breakdown_rows, columns=COLUMNS,
                family=True,
                personas=named_personas("sandbox.chatwork.breakdown_oracle:BreakdownPersona", "oracle", "noisy"),
                board="kbench_dagster.reporting.board_language:breakdown_pages",
                board_menu=(("Breakdown", "breakdown.html"),))
