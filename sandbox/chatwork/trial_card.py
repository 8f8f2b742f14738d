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
    "rules": "VARCHAR", "rounds": "INTEGER", "exchange": "VARCHAR",
    # the grading's own cost: the grading thread's CPU time (task_defs/trials/grading.py) and the Python heap's
    # high-water mark while grading (sandbox/chatwork/trials.py graded(); NULL where it was not traced)
    "oracle_ms": "DOUBLE", "heap_peak_bytes": "BIGINT",
    # what the attempt's replies cost, as the server's usage reported it; a reply without usage adds nothing there
    # and is counted in unmetered_replies, its text's length in unmetered_chars (trial_stats.token_stats estimates)
    "prompt_tokens": "BIGINT", "completion_tokens": "BIGINT", "unmetered_replies": "INTEGER",
    "unmetered_chars": "BIGINT"}


def reply_tokens(events: list[dict]) -> dict:
    """The token columns of one attempt from its reply events (cached replies carry the usage they were made
    with): usage summed where a reply reports completion tokens, else the reply counted as unmetered and the
    characters it wrote (content, reasoning, each call's name and arguments) added up."""
    out = {"prompt_tokens": 0, "completion_tokens": 0, "unmetered_replies": 0, "unmetered_chars": 0}
    for ev in events:
        if ev.get("type") != "reply":
            continue
        usage = ev.get("usage") if isinstance(ev.get("usage"), dict) else {}
        if isinstance(usage.get("completion_tokens"), int):
            out["prompt_tokens"] += usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else 0
            out["completion_tokens"] += usage["completion_tokens"]
            continue
        out["unmetered_replies"] += 1
        calls = ev.get("tool_calls") if isinstance(ev.get("tool_calls"), list) else []
        out["unmetered_chars"] += sum(len(x) for x in (ev.get("content"), ev.get("reasoning")) if isinstance(x, str))
        out["unmetered_chars"] += sum(len(str(c.get("name") or "")) + len(str(c.get("arguments") or ""))
                                      for c in calls if isinstance(c, dict))
    return out


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
        **{c: t.get(c) for c in ("shape", "response_format", "elicitation", "rules", "rounds", "oracle_ms",
                                 "heap_peak_bytes")},
        "exchange": src.record.file_text("reply.json", REPLY_CHARS), **reply_tokens(src.record.events()),
        **src.endpoint}]}


def _kind(suite: str):
    from sandbox.chatwork.trials import ToolTrials

    return ToolTrials()


CARD = KindCard(name=NAME, table="trial_results", make=_kind, rows=trial_rows, columns=COLUMNS,
                personas=named_personas("sandbox.chatwork.trials:TrialPersona", "oracle", "null"),
                board="kbench_dagster.reporting.board_trials:trial_pages", board_menu=(("Trials", "trials.html"),))
