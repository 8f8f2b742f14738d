"""What the registry knows of the kernel tasks (sandbox/engine/registry.py); the kind is gpu/kind.py, loaded only
when one is made, so reading this card loads neither torch nor the grader."""

from __future__ import annotations

from sandbox.engine.registry import KindCard, RowSource

NAME = "kernels"
COLUMNS = {
    "run_id": "VARCHAR", "model": "VARCHAR", "agent": "VARCHAR", "condition": "VARCHAR", "seed": "INTEGER",
    "task": "VARCHAR", "family": "VARCHAR", "status": "VARCHAR", "reason": "VARCHAR", "score": "DOUBLE",
    "unit": "VARCHAR", "device_kind": "VARCHAR", "device_name": "VARCHAR", "sm_count": "INTEGER", "clocks": "JSON",
    "driver": "VARCHAR", "cuda": "VARCHAR", "torch": "VARCHAR", "triton": "VARCHAR", "turns": "INTEGER",
    "tool_calls": "INTEGER", "tool_format_errors": "INTEGER", "duration_s": "DOUBLE", "started_at": "TIMESTAMP",
    "finished_at": "TIMESTAMP", "outcome": "VARCHAR", "correct": "BOOLEAN", "suite_fingerprint": "VARCHAR",
    "graded_at": "TIMESTAMP", "infra_error": "VARCHAR"}


def kernel_rows(src: RowSource) -> dict[str, list[dict]]:
    """A kernel_gradings row from a kernel task's result with its latest grading applied."""
    r = src.result
    k = r.get("kernel") or {}
    d = k.get("device") or {}
    return {"kernel_gradings": [{
        **{c: r.get(c) for c in ("run_id", "model", "agent", "condition", "seed", "task", "outcome", "turns",
                                 "tool_calls", "tool_format_errors", "duration_s", "started_at", "finished_at",
                                 "suite_fingerprint", "graded_at", "infra_error")},
        "family": r.get("tier"), "status": k.get("status") or ("infra" if r.get("infra") else None),
        "reason": k.get("reason") or r.get("detail"), "score": k.get("score"), "unit": k.get("unit"),
        "correct": k.get("correct"), "device_kind": d.get("kind"), "device_name": d.get("name"),
        "sm_count": d.get("sm_count"), "clocks": d.get("clocks_mhz"), "driver": d.get("driver"),
        "cuda": d.get("cuda"), "torch": d.get("torch"), "triton": d.get("triton")}]}


def _persona(name: str):
    if name != "oracle":
        return None
    from gpu.oracle import KernelTaskIndex
    from sandbox.servers.scripted.personas import OraclePersona

    return OraclePersona(index=KernelTaskIndex())


def _kind(suite: str):
    from gpu.kind import KernelTasks

    return KernelTasks()


CARD = KindCard(name=NAME, table="kernel_gradings", make=_kind, rows=kernel_rows, columns=COLUMNS,
                personas=_persona, board="kbench_dagster.reporting.board_kernels:kernel_pages",
                board_menu=(("Kernels", "kernels.html"),))
