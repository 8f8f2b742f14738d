"""Speed as the client sees it: one stopwatch per model request, read off the reply as it arrives.

Every path to the server measures the same way (the pi proxy, the builtin agent's stream, the chat-only kinds), so
an endpoint's figures compare across agents. Time to first token runs from sending the request (or, for one that
waited in the server's queue behind this client's own requests, from when the server could start on it; `queued_s`
says how long it waited: sandbox/engine/slots.py) to the first piece of generated text (content, reasoning or a
tool call); the generation rate counts the tokens after the first over the time from the first piece to the last,
so it is the decode speed, apart from the prompt's processing. A server that reports its own timings (llama.cpp's
`timings`) has them kept beside, never in place of, what the wire showed.
"""

from __future__ import annotations

import statistics
import time


class Stopwatch:
    """Started when a request goes out; `piece()` at each generated piece, `done()` once the reply is whole."""

    def __init__(self, stream: bool, clock=time.monotonic, ticket=None):
        self.stream, self._clock = stream, clock
        self.start = clock()
        self.ticket = ticket  # sandbox.engine.slots.Ticket: when a request queued at the server could start
        self.first: float | None = None
        self.last: float | None = None

    def piece(self) -> None:
        now = self._clock()
        if self.first is None:
            self.first = now
        self.last = now

    def done(self, usage: dict | None, timings: dict | None = None, finish: str | None = None) -> dict:
        """The request's record: seconds, token counts, rates; None where the wire cannot tell."""
        end = self._clock()
        usage = usage or {}
        completion = _count(usage.get("completion_tokens"))
        gen_s = self.last - self.first if self.first is not None and self.last is not None else None
        gen_rate = (completion - 1) / gen_s if gen_s and completion and completion > 1 else None
        timings = timings if isinstance(timings, dict) else {}
        started = max(self.start, self.ticket.start_time()) if self.ticket is not None else self.start
        if self.first is not None:
            started = min(started, self.first)  # the end ahead was read after this reply had begun
        return {
            "stream": self.stream, "finish": finish,
            "ttft_s": _round(self.first - started) if self.first is not None and self.stream else None,
            "queued_s": _round(started - self.start),
            "total_s": _round(end - self.start), "gen_s": _round(gen_s),
            "prompt_tokens": _count(usage.get("prompt_tokens")), "completion_tokens": completion,
            "gen_tok_s": _round(gen_rate),
            "server_prompt_tok_s": _round(_number(timings.get("prompt_per_second"))),
            "server_gen_tok_s": _round(_number(timings.get("predicted_per_second"))),
        }


def is_generated(delta: dict | None) -> bool:
    """Whether a streamed delta carries generated text (the role-only first chunk does not)."""
    if not isinstance(delta, dict):
        return False
    return bool(delta.get("content") or delta.get("reasoning_content") or delta.get("tool_calls"))


def speed_summary(requests: list[dict]) -> dict:
    """An attempt's figures from its requests: the median time to first token (one long prompt is not the norm)
    and the generation rate over all its tokens, sum(tokens after the first) / sum(seconds from first to last),
    so a two-token reply, timed over a few milliseconds, does not weigh as much as a long one."""
    ttfts = [r["ttft_s"] for r in requests if r.get("ttft_s") is not None]
    server = [r["server_gen_tok_s"] for r in requests if r.get("server_gen_tok_s") is not None]
    return {"requests": len(requests), "ttft_s": _round(statistics.median(ttfts)) if ttfts else None,
            "gen_tok_s": pooled_rate(requests),
            "server_gen_tok_s": _round(statistics.median(server)) if server else None}


def pooled_rate(requests: list[dict]) -> float | None:
    """Generated tokens per second over many requests, each weighed by its tokens (see speed_summary)."""
    timed = [r for r in requests if r.get("gen_s") and (r.get("completion_tokens") or 0) > 1]
    seconds = sum(r["gen_s"] for r in timed)
    return _round(sum(r["completion_tokens"] - 1 for r in timed) / seconds) if seconds > 0 else None


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
