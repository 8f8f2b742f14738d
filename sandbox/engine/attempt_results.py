"""The shape of an attempt's result: every result has the same keys whatever its outcome, since the store, the
reports and regrade read them without asking which kind or outcome wrote it."""

from __future__ import annotations

from sandbox.agents.record import SessionStats
from sandbox.agents.wire import speed_summary
from sandbox.engine.attempt_folders import is_false_claim
from sandbox.engine.kinds import Verdict

HARNESS_ERROR = "harness error"  # how infra_error begins when our own code failed, not the server
RESULT_DEFAULTS = {"outcome": None, "infra": False, "infra_error": None, "detail": "", "test_duration_s": 0.0,
                   "agent_timeout": False, "over_budget": False, "latency_budget_s": None,
                   "false_claim": False, "test_kills": 0, "files_left_out": [],
                   "requeues": 0, "harness_error": None, "changed_files": []}


def counts(s: SessionStats) -> dict:
    """What the attempt's sessions (or chat exchange) did: turns, tokens, tools, kills, speed."""
    return {"duration_s": round(s.duration_s, 3), "turns": s.turns, "input_tokens": s.input_tokens,
            "output_tokens": s.output_tokens, "cutoffs": s.cutoffs, "tool_calls": s.tool_calls,
            "tool_errors": s.tool_errors, "tool_format_errors": s.tool_format_errors,
            "native_calls": s.native_calls, "text_calls": s.text_calls, "watchdog_kills": s.kills,
            "outside_writes": len(s.outside_writes), "outside_write_paths": s.outside_writes[:50],
            "stop_reason": s.stop_reason, "server_error": s.server_error, "reasoned": s.reasoned,
            "final_message": (s.final_message or "")[-2000:], **speed_summary(s.requests)}


NO_COUNTS = counts(SessionStats())  # the counts of an attempt no session ran


def test_kills(g: Verdict) -> int:
    """What a limit or the cleanup killed in the hidden test's session. Processes its namespace's end took are in
    watchdog.log but not counted against the attempt: kb.load's own child is still running when the judge exits."""
    if g.session is None:
        return 0
    return g.session.kill_count - sum(k.count for k in g.session.kills if k.reason == "teardown")


def graded(base: dict, stats: SessionStats, g: Verdict, budget: float | None, left_out: list[str],
           requeues: int) -> dict:
    """The fields of a graded attempt's result."""
    return {**base, **counts(stats), "outcome": g.outcome, "infra": False, "detail": g.detail,
            "test_duration_s": round(g.duration_s, 3), "agent_timeout": stats.stop_reason == "timeout",
            "latency_budget_s": budget, "over_budget": budget is not None and stats.duration_s > budget,
            "false_claim": is_false_claim(stats.final_message, g.outcome), "test_kills": test_kills(g),
            "files_left_out": left_out, "requeues": requeues, **g.extra}
