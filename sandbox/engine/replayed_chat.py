"""A chat attempt asked again from its own record: the replies its events hold, played back in order.

An attempt our own code failed on (a harness error; the parsers that once broke on a reply nested thousands deep
are the case in point) has no verdict, and often no kept replies either, since execute() never reached its end.
Its events still hold every request and what came back. A regrade plays them back through the kind's execute(),
which rebuilds what it keeps exactly as the first run would have, and grades that: no server is asked. Where
execute() asks for something the events do not hold (the kind now asks differently, or the server had failed that
request), the replay stops with ReplayGap and the record keeps what it had.

Where the record simply ends (our code failed before the next request of an exchange was made), the replies it
holds are graded only when the kind says they settle the verdict: a kind's optional `settled(unit, kept)` is True
when no later reply could change it (a trial whose kept calls hold one with unreadable arguments fails whatever
follows). Anything else would score the model on a conversation our code cut short.
"""

from __future__ import annotations

from sandbox.engine.chat import ChatReply
from sandbox.engine.jsonlines import json_bytes, json_value


class ReplayGap(Exception):
    """The record does not hold the reply the kind asks for now."""


class RecordEnds(ReplayGap):
    """The kind asks for more than the record's requests: the exchange was cut short where the record ends."""


def recorded_answers(events: list[dict]) -> list[tuple[object, ChatReply | None]]:
    """(the messages of each request, what came back: a reply, a refusal, or None where the server failed)."""
    out: list[tuple[object, ChatReply | None]] = []
    for e in events:
        kind = e.get("type")
        if kind == "request":
            out.append((e.get("messages"), None))
        elif out and out[-1][1] is None and kind == "reply":
            out[-1] = (out[-1][0], ChatReply(e.get("content") or "", list(e.get("tool_calls") or []),
                                             e.get("finish") or "stop", e.get("reasoning") or ""))
        elif out and out[-1][1] is None and kind == "error" and e.get("infra") is False:
            out[-1] = (out[-1][0], ChatReply("", finish="refused", error=e.get("message")))
    return out


class ReplayedChat:
    """What execute() asks through in a regrade: a ChatSession's ask(), answered from the record's events."""

    def __init__(self, events: list[dict], attempt: int):
        self.attempt = attempt
        self.replay = True
        self._answers = recorded_answers(events)

    def ask(self, messages: list[dict], *, tools: list[dict] | None = None, max_tokens: int | None = None,
            response_format: dict | None = None, cache=None) -> ChatReply:
        if not self._answers:
            raise RecordEnds("the record ends before the exchange did")
        asked, reply = self._answers.pop(0)
        # compared as the events hold them (JSON): the same request, or the kind asks differently now
        if json_value(json_bytes(messages)) != asked:
            raise ReplayGap("the kind asks differently now than the record's request")
        if reply is None:
            raise ReplayGap("the record holds no reply to this request (the server failed it)")
        return reply


def replay_kept(kind, unit, events: list[dict], attempt: int) -> dict[str, str]:
    """The files the kind keeps, rebuilt by its execute() from the recorded replies; an exchange the record ends
    in the middle of only where the kind's settled() says what it holds decides the verdict."""
    kept: dict[str, str] = {}
    try:
        kind.execute(unit, ReplayedChat(events, attempt), kept)
    except RecordEnds as exc:
        settled = getattr(kind, "settled", None)
        if settled is None or not settled(unit, kept):
            raise RecordEnds(f"{exc}, and the replies it holds do not settle the verdict") from None
    return kept
