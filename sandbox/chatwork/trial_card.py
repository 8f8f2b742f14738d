"""What the registry knows of the tool-use trials; the kind is sandbox/chatwork/trials.py."""

from __future__ import annotations

from sandbox.engine.registry import REPLY_CHARS, KindCard, RowSource, named_personas

NAME = "trials"
COLUMNS = {
    "run_id": "VARCHAR", "model": "VARCHAR", "condition": "VARCHAR", "seed": "INTEGER", "trial": "VARCHAR",
    "family": "VARCHAR", "grade": "VARCHAR", "oracle": "VARCHAR", "outcome": "VARCHAR", "score": "DOUBLE",
    "cause": "VARCHAR", "detail": "VARCHAR", "forms": "VARCHAR", "sampling": "VARCHAR", "reasoning_effort": "VARCHAR",
    "reasoned": "BOOLEAN", "duration_s": "DOUBLE",
    "ttft_s": "DOUBLE", "infra_error": "VARCHAR", "suite_fingerprint": "VARCHAR", "graded_at": "TIMESTAMP",
    "endpoint": "VARCHAR", "engine": "VARCHAR", "quant": "VARCHAR", "hardware": "VARCHAR",
    "hardware_class": "VARCHAR", "shape": "VARCHAR", "response_format": "VARCHAR", "elicitation": "VARCHAR",
    "rules": "VARCHAR", "rounds": "INTEGER", "exchange": "VARCHAR"}


def trial_rows(src: RowSource) -> dict[str, list[dict]]:
    """A trial_results row: the trial's verdict with its latest grading applied, the endpoint it ran on, and the
    kept exchange (the replies as the server sent them: the evidence the board shows)."""
    r = src.result
    t = r.get("trial") or {}
    return {"trial_results": [{
        **{c: r.get(c) for c in ("run_id", "model", "condition", "seed", "outcome", "sampling", "reasoning_effort",
                                 "reasoned", "duration_s", "infra_error", "suite_fingerprint", "graded_at")},
        "trial": r["task"], "family": r.get("category"), "grade": r.get("tier"), "oracle": t.get("oracle"),
        "score": t.get("score"), "cause": t.get("cause"), "detail": r.get("detail"),
        "forms": ",".join(t.get("forms") or []), "ttft_s": r.get("ttft_s"),
        **{c: t.get(c) for c in ("shape", "response_format", "elicitation", "rules", "rounds")},
        "exchange": src.record.file_text("reply.json", REPLY_CHARS), **src.endpoint}]}


def _kind(suite: str):
    from sandbox.chatwork.trials import ToolTrials

    return ToolTrials()


CARD = KindCard(name=NAME, table="trial_results", make=_kind, rows=trial_rows, columns=COLUMNS,
                personas=named_personas("sandbox.chatwork.trials:TrialPersona", "oracle", "null"),
                board="kbench_dagster.reporting.board_trials:trial_pages", board_menu=(("Trials", "trials.html"),))
