"""Our own minimal tool-calling agent: the openai client (streaming), four tools, the same limits and records."""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sandbox.agents import constrained
from sandbox.agents.record import EventLog, SessionStats, shows_reasoning
from sandbox.agents.textcalls import parse_text_calls
from sandbox.agents.tools import TOOL_SCHEMAS, ToolBox, ToolError, check_call
from sandbox.agents.wire import Stopwatch
from sandbox.engine.conditions import Condition
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import Limits
from sandbox.judge.parse import Refused, bounded_json

if TYPE_CHECKING:
    import openai

ToolFormat = Literal["native", "text", "auto", "constrained"]
SYSTEM_PROMPT = (Path(__file__).parent / "SYSTEM.md").read_text(encoding="utf-8")
MAX_TURNS = 200


def infra_errors() -> tuple[type[Exception], ...]:
    """The openai client's errors that are the server's trouble, not the model's answer. openai is imported where it
    is used, here and in the clients: it costs most of a second of every command's start, and a command that asks
    no server (a strike answered from the reply cache, a gate, a board) never needs it."""
    import openai

    return openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError, openai.RateLimitError


class OutOfTime(Exception):
    """The session's time ran out while a reply was still coming: an agent timeout, not a server fault."""


class BrokenReply(Exception):
    """The server's reply could not be read (malformed JSON, a stream cut short): an infra failure."""


def read_reply(stream, deadline: float, watch: Stopwatch) -> dict:
    """A streamed chat reply put together (content, reasoning, tool calls, finish, usage) and timed on the way;
    raises OutOfTime past the deadline and BrokenReply for a stream that cannot be read or was cut short."""
    content, reasoning, calls, finish, usage, timings = [], [], {}, None, None, None
    try:
        for chunk in stream:
            if time.monotonic() > deadline:
                stream.close()  # stop generating: the session is over
                raise OutOfTime()
            if getattr(chunk, "usage", None):
                usage = chunk.usage
            timings = (chunk.model_extra or {}).get("timings") or timings  # llama.cpp's own figures
            for choice in chunk.choices or []:
                finish = choice.finish_reason or finish
                delta = choice.delta
                if delta is None:
                    continue
                r = getattr(delta, "reasoning_content", None)
                if delta.content or r or delta.tool_calls:
                    watch.piece()
                if delta.content:
                    content.append(delta.content)
                if r:
                    reasoning.append(r)
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                    if tc.id:
                        slot["id"] = tc.id
                    if tc.function and tc.function.name:
                        slot["name"] += tc.function.name
                    if tc.function and tc.function.arguments:
                        slot["arguments"] += tc.function.arguments
    except (json.JSONDecodeError, ValueError) as exc:
        raise BrokenReply(f"malformed reply from the server: {exc}") from exc
    if finish is None:
        raise BrokenReply("the reply stream ended without a finish reason (cut short)")
    plain_usage = usage.model_dump() if usage is not None else None
    return {"content": "".join(content), "reasoning": "".join(reasoning),
            "calls": [calls[i] for i in sorted(calls)], "finish": finish, "usage": usage,
            "speed": watch.done(plain_usage, timings, finish)}


@dataclass
class BuiltinAgent:
    url: str
    model: str
    api_key: str = "none"
    tool_format: ToolFormat = "auto"
    request_timeout_s: float = 600.0

    def __post_init__(self) -> None:
        self._client: openai.OpenAI | None = None
        self._client_lock = threading.Lock()

    def client(self) -> openai.OpenAI:
        """One client for every session and worker: building one (TLS context, pool) costs CPU per task."""
        import openai

        with self._client_lock:
            if self._client is None:
                self._client = openai.OpenAI(base_url=self.url, api_key=self.api_key or "none", max_retries=0,
                                             timeout=self.request_timeout_s)
            return self._client

    def _request(self, client, messages, cond: Condition, deadline: float) -> dict:
        extra = cond.request_extra()
        left = deadline - time.monotonic()
        watch = Stopwatch(stream=True)
        # constrained: no tools offered, the reply's grammar is the action schema (sandbox/agents/constrained.py)
        how = {"response_format": constrained.RESPONSE_FORMAT} if self.tool_format == "constrained" else \
            {"tools": TOOL_SCHEMAS}
        import openai

        try:
            stream = client.chat.completions.create(
                model=self.model, messages=messages, stream=True, stream_options={"include_usage": True},
                max_tokens=cond.max_tokens, extra_body=extra, timeout=max(left, 1.0), **how)
        except openai.APITimeoutError as exc:
            if time.monotonic() >= deadline - 1:
                raise OutOfTime() from exc
            raise
        return read_reply(stream, deadline, watch)

    def run(self, prompt: str, workdir: Path, cond: Condition, cfg: IsolationConfig, limits: Limits,
            events: EventLog, log_path: Path | None = None) -> SessionStats:
        """One agent session on one prompt; never raises for model or server trouble, it records it."""
        stats = SessionStats()
        start = time.monotonic()
        tools = ToolBox(Path(workdir), cfg, limits, deadline=start + limits.timeout_s, log_path=log_path)
        system = SYSTEM_PROMPT + (constrained.SYSTEM if self.tool_format == "constrained" else "")
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        events.write({"type": "prompt", "agent": "builtin", "text": prompt})
        client = self.client()
        import openai

        for _ in range(min(MAX_TURNS, limits.max_turns or MAX_TURNS)):
            if time.monotonic() - start > limits.timeout_s:
                stats.stop_reason = "timeout"
                break
            try:
                reply = self._request(client, messages, cond, start + limits.timeout_s)
            except OutOfTime:
                stats.stop_reason = "timeout"
                events.write({"type": "timeout", "message": f"the session ran past {limits.timeout_s:g}s"})
                break
            except infra_errors() + (BrokenReply,) as exc:
                stats.infra_error = f"{type(exc).__name__}: {exc}"[:500]
                stats.stop_reason = "error"
                events.write({"type": "error", "infra": True, "message": stats.infra_error})
                break
            except openai.APIStatusError as exc:
                stats.server_error = f"HTTP {exc.status_code}: {exc.message}"[:500]
                stats.stop_reason = "error"
                events.write({"type": "error", "infra": False, "message": stats.server_error})
                break
            if not self._turn(reply, messages, stats, tools, events):
                break
        else:
            stats.stop_reason = "max_turns"
        stats.duration_s = time.monotonic() - start
        stats.kills = tools.kills
        stats.outside_writes = tools.outside_writes
        return stats

    def _turn(self, reply: dict, messages: list, stats: SessionStats, tools: ToolBox, events: EventLog) -> bool:
        """Record one reply and run its calls; False when the session is over."""
        stats.turns += 1
        usage = reply["usage"]
        plain_usage = usage.model_dump() if usage is not None else None
        if usage is not None:
            stats.input_tokens += usage.prompt_tokens or 0
            stats.output_tokens += usage.completion_tokens or 0
        if reply["finish"] == "length":
            stats.cutoffs += 1
        content = reply["content"]
        stats.note_reply(shows_reasoning(content, reply["reasoning"], plain_usage))
        events.write({"type": "assistant", "content": content, "reasoning": reply["reasoning"] or None,
                      "tool_calls": reply["calls"], "finish_reason": reply["finish"], "usage": plain_usage})
        stats.requests.append(reply["speed"])
        events.write({"type": "speed", **reply["speed"]})
        calls = []  # (id, name, args or None, error, form)
        for c in reply["calls"]:
            try:
                args = bounded_json(c["arguments"] or "{}")
                calls.append((c["id"] or f"call_{uuid.uuid4().hex[:8]}", c["name"], args, check_call(c["name"], args),
                              "native"))
            except Refused as exc:  # too deep or too big is a broken call like bad JSON: the model is told
                calls.append((c["id"] or f"call_{uuid.uuid4().hex[:8]}", c["name"], None,
                              f"arguments refused: {exc}", "native"))
        native = bool(calls)
        final = content
        if self.tool_format == "constrained":
            what, name, args, said = constrained.parse_action(content)
            if what == "call":
                calls.append((f"json_{uuid.uuid4().hex[:8]}", name, args, check_call(name, args), "constrained"))
            elif what == "error":  # said: why it is no action; the model is told, as for any broken call
                calls.append((f"json_{uuid.uuid4().hex[:8]}", name, None, said, "constrained"))
            final = said if what == "done" else content
        elif not calls and self.tool_format in ("text", "auto"):
            for t in parse_text_calls(content):
                err = t.error or check_call(t.name, t.arguments)
                calls.append((f"text_{uuid.uuid4().hex[:8]}", t.name, t.arguments, err, "text"))
        elif not calls and self.tool_format == "native":
            broken = parse_text_calls(content)
            if broken:  # it tried to call a tool, but not in the form this run accepts
                stats.tool_format_errors += len(broken)
                events.write({"type": "tool_format_error", "form": "text", "count": len(broken),
                              "message": "tool call written as text; this run accepts native calls only"})
        if not calls:
            stats.final_message = final
            stats.stop_reason = "length" if reply["finish"] == "length" else "stop"
            return False
        if native:
            messages.append({"role": "assistant", "content": content or None, "tool_calls": [
                {"id": cid, "type": "function",
                 "function": {"name": name or "", "arguments": json.dumps(args) if args is not None else "{}"}}
                for cid, name, args, _err, _f in calls]})
        else:
            messages.append({"role": "assistant", "content": content})
        text_results = []
        for cid, name, args, err, form in calls:
            if err:
                stats.tool_format_errors += 1
                result, is_error = f"error: invalid tool call: {err}", True
                events.write({"type": "tool_format_error", "form": form, "name": name, "message": err})
            else:
                stats.tool_calls += 1
                stats.native_calls += form == "native"
                stats.text_calls += form == "text"
                events.write({"type": "tool_call", "form": form, "name": name, "args": args})
                try:
                    result, is_error = tools.run(name, args), False
                except ToolError as exc:
                    result, is_error = str(exc), True
                    stats.tool_errors += 1
                except OSError as exc:
                    result, is_error = f"error: {exc}", True
                    stats.tool_errors += 1
                events.write({"type": "tool_result", "name": name, "is_error": is_error, "output": result[:4000]})
            if native:
                messages.append({"role": "tool", "tool_call_id": cid, "content": result})
            else:
                text_results.append(f"Result of {name}:\n{result}")
        if text_results:
            messages.append({"role": "user", "content": "\n\n".join(text_results)})
        return True
