"""Chat-only work: kinds whose attempt is one request, or a short conversation, sent by the harness itself.

Text jobs, tool-use trials and capability items need no agent and no sandboxed session: the model's reply is data
that the kind's scorer reads, never code that runs. Such a kind implements `execute(unit, chat, kept)` (see
sandbox/engine/kinds.py) and asks through the ChatSession its executor hands it. The session does what an agent
session does for the agent executor: holds one of the server's slots per request, writes every request and reply to the
attempt's events, counts turns and tokens, keeps to the attempt's time, and tells server trouble (ChatInfra: the
attempt is requeued, never scored) from the model's own failings (a refused request is recorded and returned).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from sandbox.agents.builtin import BrokenReply, OutOfTime, infra_errors, read_reply
from sandbox.agents.record import EventLog, SessionStats, shows_reasoning
from sandbox.agents.wire import Stopwatch
from sandbox.engine.conditions import Condition
from sandbox.engine.reply_cache import ReplyCache
from sandbox.engine.slots import ServerSlots, request_slot
from sandbox.judge.parse import MAX_BYTES, MAX_DEPTH, Refused, bounded_json, json_depth


class ChatInfra(Exception):
    """The server could not be reached or its reply could not be read: the attempt goes back in the queue."""


class ChatTimeout(Exception):
    """The attempt's time ran out before the replies it needed were in: outcome timeout, never a wrong answer."""


class NotCached(Exception):
    """A replay (a session that may only answer from the reply cache) met a request the cache does not hold."""


@dataclass
class ChatReply:
    content: str
    tool_calls: list[dict] = field(default_factory=list)  # {"id", "name", "arguments": the JSON text as sent}
    finish: str = "stop"  # stop | length | tool_calls | refused (the server answered 4xx: `error` says why)
    reasoning: str = ""
    error: str | None = None


def call_arguments(call: dict) -> dict | None:
    """A native call's arguments as an object, or None when they are not one; read with bounded depth and size,
    since the model wrote them."""
    try:
        args = bounded_json(call.get("arguments") or "{}")
    except Refused:
        return None
    return args if isinstance(args, dict) else None


def server_broke(call: dict) -> bool:
    """Whether a native call's arguments are the server's failure: not a JSON object, which only the server's own
    tool-call parser makes. Arguments nested or sized past what the judge reads are the model's own making (a
    server passes them through): a wrong call, never infra."""
    text = call.get("arguments") or "{}"
    if isinstance(text, str) and (len(text) > MAX_BYTES or json_depth(text) > MAX_DEPTH):
        return False
    return call_arguments(call) is None


def _keepable(done: dict) -> bool:
    """A reply worth replaying: something came back and no native call's arguments were broken by the server. An
    empty completion or broken arguments is the provider's failure, asked again next time rather than kept."""
    if not (done["content"].strip() or done["calls"] or done["reasoning"].strip()):
        return False
    return not any(server_broke(c) for c in done["calls"])


class ChatClient:
    """One OpenAI client for every attempt of a run, made at the first request (a strike answered from the reply
    cache makes none); opens a ChatSession per attempt."""

    def __init__(self, url: str, model: str, api_key: str | None):
        self.model, self.url, self._api_key = model, url, api_key
        self._client = None
        self._lock = threading.Lock()

    def session(self, cond: Condition, timeout_s: float, events: EventLog, slots: ServerSlots | None,
                attempt: int = 1, replay: bool = False) -> ChatSession:
        return ChatSession(self, cond, time.monotonic() + timeout_s, events, slots, attempt, replay)

    def create(self, params: dict, timeout_s: float):
        with self._lock:
            if self._client is None:
                import openai  # where it is used: sandbox/agents/builtin.py infra_errors says why

                self._client = openai.OpenAI(base_url=self.url, api_key=self._api_key or "none", max_retries=0)
        return self._client.chat.completions.create(**params, timeout=timeout_s)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()


class ChatSession:
    """What a chat-only kind's execute() asks through, for one attempt."""

    def __init__(self, client: ChatClient, cond: Condition, deadline: float, events: EventLog,
                 slots: ServerSlots | None, attempt: int = 1, replay: bool = False):
        self._client, self.cond, self.deadline, self.events, self._slots = client, cond, deadline, events, slots
        self.attempt = attempt  # the attempt's seed: a kind may vary what it asks by it (the trials' tool order)
        self.replay = replay  # answer from the cache only: a request it does not hold raises NotCached
        self.stats = SessionStats()
        self.slot_wait_s = 0.0

    def ask(self, messages: list[dict], *, tools: list[dict] | None = None, max_tokens: int | None = None,
            response_format: dict | None = None, cache: ReplyCache | None = None) -> ChatReply:
        """One chat completion. max_tokens defaults to the condition's cap and the sampling is the condition's (the
        run's, so every kind's requests are made alike); with a cache, a request asked before (same endpoint,
        model, attempt and body) is answered from it. Raises ChatInfra or ChatTimeout (and NotCached in a
        replay)."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise ChatTimeout("the attempt's time ran out before this request")
        asked: dict = {"model": self._client.model, "messages": messages,
                       "max_tokens": max_tokens or self.cond.max_tokens, "extra_body": self.cond.request_extra()}
        if tools:
            asked["tools"] = tools
        if response_format:
            asked["response_format"] = response_format
        keyed = {"url": self._client.url, "attempt": self.attempt, **asked}
        key = cache.key(keyed) if cache else None
        kept = cache.get(key, keyed) if cache else None
        if kept is None and self.replay:
            raise NotCached("a request the reply cache does not hold")
        self.events.write({"type": "request", "messages": messages, "tools": [t["function"]["name"] for t in tools]
                           if tools else None, "response_format": (response_format or {}).get("type")})
        if kept is not None:
            return self._reply({**kept, "speed": None}, cached=True)
        import openai

        # streamed, so the reply's speed is seen as it arrives (sandbox/agents/wire.py)
        params = {**asked, "stream": True, "stream_options": {"include_usage": True}}
        t = time.monotonic()
        with request_slot(self._slots, self.events) as ticket:
            self.slot_wait_s += time.monotonic() - t
            watch = Stopwatch(stream=True, ticket=ticket)
            try:  # the time left is counted after the wait for a slot: that wait is the attempt's time too
                stream = self._client.create(params, timeout_s=max(self.deadline - time.monotonic(), 0.5))
                done = read_reply(stream, self.deadline, watch)
            except (openai.APITimeoutError, OutOfTime) as exc:
                if time.monotonic() >= self.deadline - 0.5:
                    self.events.write({"type": "timeout", "message": "the attempt's time ran out during a request"})
                    raise ChatTimeout("the attempt's time ran out during a request") from exc
                raise self._infra(exc) from exc
            except infra_errors() + (openai.APIResponseValidationError, BrokenReply, ValueError) as exc:
                raise self._infra(exc) from exc
            except openai.APIStatusError as exc:  # the server refused this request (4xx): the model's record
                error = f"HTTP {exc.status_code}: {exc.message}"[:500]
                self.stats.server_error = self.stats.server_error or error
                self.events.write({"type": "error", "infra": False, "message": error})
                return ChatReply("", finish="refused", error=error)
        usage = json.loads(done["usage"].model_dump_json()) if done["usage"] is not None else None
        reply = self._reply({**done, "usage": usage})
        if cache is not None and _keepable(done):
            cache.put(key, {"content": done["content"], "calls": done["calls"], "finish": done["finish"],
                            "reasoning": done["reasoning"], "usage": usage})
        return reply

    def _infra(self, exc: Exception) -> ChatInfra:
        message = f"{type(exc).__name__}: {exc}"[:500]
        self.events.write({"type": "error", "infra": True, "message": message})
        return ChatInfra(message)

    def _reply(self, done: dict, cached: bool = False) -> ChatReply:
        """Count and record a reply. A cached one counts its tokens (what the answer cost to make) but no speed:
        nothing was timed."""
        reply = ChatReply(done["content"], done["calls"], done["finish"], done["reasoning"])
        s = self.stats
        s.turns += 1
        s.native_calls += len(reply.tool_calls)
        s.cutoffs += reply.finish == "length"
        usage = done["usage"]
        if usage is not None:
            s.input_tokens += usage.get("prompt_tokens") or 0
            s.output_tokens += usage.get("completion_tokens") or 0
        s.note_reply(shows_reasoning(reply.content, reply.reasoning, usage))
        self.events.write({"type": "reply", "content": reply.content, "reasoning": reply.reasoning or None,
                           "tool_calls": reply.tool_calls or None, "finish": reply.finish, "usage": usage,
                           **({"cached": True} if cached else {})})
        if not cached:
            s.requests.append(done["speed"])
            self.events.write({"type": "speed", **done["speed"]})
        return reply
