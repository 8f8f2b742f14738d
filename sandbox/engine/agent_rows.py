"""The agent tasks' rows: one attempts row (what the run did) and one gradings row (its current verdict) per
attempt. Their columns are declared here, beside the mapper that fills them; the store builds its tables from them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandbox.engine.registry import RowSource

ATTEMPT_COLUMNS = {
    "partition_key": "VARCHAR", "run_id": "VARCHAR", "model": "VARCHAR", "agent": "VARCHAR",
    "condition": "VARCHAR", "task": "VARCHAR", "seed": "INTEGER", "category": "VARCHAR", "tier": "VARCHAR",
    "outcome": "VARCHAR", "infra": "BOOLEAN", "infra_error": "VARCHAR", "requeues": "INTEGER",
    "duration_s": "DOUBLE", "wall_s": "DOUBLE", "test_duration_s": "DOUBLE", "turns": "INTEGER",
    "input_tokens": "BIGINT", "output_tokens": "BIGINT", "cutoffs": "INTEGER", "tool_calls": "INTEGER",
    "native_calls": "INTEGER", "text_calls": "INTEGER", "tool_errors": "INTEGER", "tool_format_errors": "INTEGER",
    "watchdog_kills": "INTEGER", "test_kills": "INTEGER", "outside_writes": "INTEGER", "false_claim": "BOOLEAN",
    "agent_timeout": "BOOLEAN", "over_budget": "BOOLEAN", "latency_budget_s": "DOUBLE",
    "sampling": "VARCHAR", "reasoning_effort": "VARCHAR", "reasoned": "BOOLEAN", "endpoint": "VARCHAR",
    "engine": "VARCHAR", "quant": "VARCHAR", "hardware": "VARCHAR",
    "hardware_class": "VARCHAR", "requests": "INTEGER", "ttft_s": "DOUBLE", "gen_tok_s": "DOUBLE",
    "server_gen_tok_s": "DOUBLE",
    "stop_reason": "VARCHAR", "server_error": "VARCHAR", "detail": "VARCHAR",
    "final_message": "VARCHAR", "suite_fingerprint": "VARCHAR", "isolation": "VARCHAR", "server_url": "VARCHAR",
    "started_at": "TIMESTAMP", "finished_at": "TIMESTAMP", "record_path": "VARCHAR",
}
GRADING_COLUMNS = {
    "partition_key": "VARCHAR", "run_id": "VARCHAR", "model": "VARCHAR", "condition": "VARCHAR",
    "task": "VARCHAR", "seed": "INTEGER", "outcome": "VARCHAR", "detail": "VARCHAR", "test_duration_s": "DOUBLE",
    "suite_fingerprint": "VARCHAR", "regraded": "BOOLEAN", "graded_at": "TIMESTAMP",
}

def grading_row(r: dict) -> dict:
    """A gradings row from a result with its latest regrading applied (sandbox.engine.attempt_folders.read_result)."""
    return {"run_id": r["run_id"], "model": r["model"], "condition": r["condition"], "task": r["task"],
            "seed": r["seed"], "outcome": r["outcome"], "detail": r.get("detail"),
            "test_duration_s": r.get("test_duration_s"), "suite_fingerprint": r["suite_fingerprint"],
            "regraded": r["regraded"], "graded_at": r["graded_at"]}


def agent_task_rows(src: RowSource) -> dict[str, list[dict]]:
    row = {c: src.recorded.get(c) for c in ATTEMPT_COLUMNS if c in src.recorded}
    row.update(server_url=src.server_url, record_path=src.record.where, **src.endpoint)
    return {"attempts": [row], "gradings": [grading_row(src.result)]}
