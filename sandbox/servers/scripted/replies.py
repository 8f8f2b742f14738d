"""How a persona's reply goes out on the wire: usage counts, the chat.completion body, the streamed chunks paced
to a set time to first token and token rate, and the broken replies of the chaos persona. ReplyWriter is a base
of ScriptedServer, so these read the server's own settings (model_id, ttft_s, token_rate, chaos_delay) as they
stand at each request. Standard library only; never imports dagster.
"""

from __future__ import annotations

import json
import math
import time

from sandbox.servers.scripted.http_handler import ScriptedHandler, error_body
from sandbox.servers.scripted.personas import Failure, Reply

CONTENT_PIECE_CHARS = 24  # a streamed text arrives in pieces of this many characters
ARGUMENTS_PIECE_CHARS = 64  # and a tool call's arguments in pieces of this many
CHARS_PER_TOKEN = 4  # the rough token count of usage, and of max_tokens


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


class ReplyWriter:
    """The reply-writing half of ScriptedServer, which sets these attributes."""

    model_id: str
    ttft_s: float
    token_rate: float
    chaos_delay: float

    # --- bodies -------------------------------------------------------------------------------------------

    def _usage(self, req: dict, reply: Reply, reasoning: str = "") -> dict:
        prompt = json.dumps(req.get("messages"), ensure_ascii=False) + json.dumps(req.get("tools") or [])
        completion = (reply.content or "") + "".join(c.name + c.arguments_json for c in reply.tool_calls)
        p, c, r = max(1, estimate_tokens(prompt)), max(1, estimate_tokens(completion)), estimate_tokens(reasoning)
        usage = {"prompt_tokens": p, "completion_tokens": c + r, "total_tokens": p + c + r}
        if r:  # as OpenAI-style servers count them: within the completion tokens
            usage["completion_tokens_details"] = {"reasoning_tokens": r}
        return usage

    def _completion(self, cid: str, reply: Reply, usage: dict, reasoning: str = "") -> dict:
        message: dict = {"role": "assistant", "content": reply.content}
        if reasoning:
            message["reasoning_content"] = reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for c in reply.tool_calls
            ]
        return {
            "id": cid, "object": "chat.completion", "created": int(time.time()), "model": self.model_id,
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish, "logprobs": None}],
            "usage": usage,
        }

    def _chunk(self, cid: str, delta: dict | None, finish: str | None = None, usage_field: bool = False,
               usage: dict | None = None) -> dict:
        out = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": self.model_id,
               "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish,
                                                     "logprobs": None}]}
        if usage_field:
            out["usage"] = usage
        return out

    # --- pacing -------------------------------------------------------------------------------------------

    def _generation_s(self, completion_tokens: int) -> float:
        """Seconds from the pacing clock's start to the last generated token: the time to the first token, plus
        (tokens - 1) / rate when a rate is set."""
        if self.token_rate > 0:
            return self.ttft_s + max(0, completion_tokens - 1) / self.token_rate
        return self.ttft_s

    def _targets(self, start: float, pieces: int, completion_tokens: int) -> list[float]:
        """The monotonic instant each of `pieces` generated chunks is due: the first at start + ttft_s, the last at
        start + _generation_s(completion_tokens), the others evenly between. Absolute, so a late piece does not
        delay the ones after it."""
        first = start + self.ttft_s
        span = self._generation_s(completion_tokens) - self.ttft_s
        if pieces <= 1:
            return [first] * pieces
        return [first + span * k / (pieces - 1) for k in range(pieces)]

    @staticmethod
    def _sleep_until(target: float) -> None:
        left = target - time.monotonic()
        if left > 0:
            time.sleep(left)

    def _stream(self, h: ScriptedHandler, cid: str, reply: Reply, usage: dict | None, start: float | None = None,
                completion_tokens: int = 1, reasoning: str = "") -> None:
        with_usage = usage is not None
        # the deltas that carry generated text, in order: reasoning first, as a thinking model writes it
        pieces: list[dict] = [{"reasoning_content": reasoning[i:i + CONTENT_PIECE_CHARS]}
                              for i in range(0, len(reasoning), CONTENT_PIECE_CHARS)]
        text = reply.content or ""
        for i in range(0, len(text), CONTENT_PIECE_CHARS):
            pieces.append({"content": text[i:i + CONTENT_PIECE_CHARS]})
        for index, call in enumerate(reply.tool_calls):
            args = call.arguments_json
            pieces.append({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                           "function": {"name": call.name, "arguments": ""}}]})
            for i in range(0, len(args), ARGUMENTS_PIECE_CHARS):
                piece = args[i:i + ARGUMENTS_PIECE_CHARS]
                pieces.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        start = time.monotonic() if start is None else start
        # an empty reply still counts one token (as usage does): then the finish chunk is what is due at ttft_s
        targets = self._targets(start, max(1, len(pieces)), completion_tokens)
        h.start_events()
        h.event(self._chunk(cid, {"role": "assistant", "content": ""}, usage_field=with_usage))  # no token: at once
        for delta, target in zip(pieces, targets):
            self._sleep_until(target)
            h.event(self._chunk(cid, delta, usage_field=with_usage))
        if not pieces:
            self._sleep_until(targets[0])
        h.event(self._chunk(cid, {}, reply.finish, usage_field=with_usage))
        if with_usage:
            h.event(self._chunk(cid, None, usage_field=True, usage=usage))
        h.event("[DONE]")

    # --- chaos --------------------------------------------------------------------------------------------

    def _fail(self, h: ScriptedHandler, failure: Failure, stream: bool) -> None:
        cid = "chatcmpl-chaos"
        if failure.kind == "http_500":
            h.send_json(500, error_body("chaos: internal server error", "server_error"))
        elif failure.kind == "reset":
            h.reset()
        elif failure.kind == "bad_json":
            if stream:
                h.start_events()
                h.event(self._chunk(cid, {"role": "assistant", "content": ""}))
                h.event('{"id": "chatcmpl-chaos", "object": "chat.completion.chunk", "choices": [{"delta": {"cont')
                h.event("[DONE]")
            else:
                h.send_raw(200, b'{"id": "chatcmpl-chaos", "object": "chat.completion", "choices": [{"index": 0, '
                                b'"message": {"role": "assist', "application/json")
        elif failure.kind == "truncated":
            if stream:
                h.start_events()
                h.event(self._chunk(cid, {"role": "assistant", "content": ""}))
                for piece in ("I will now ", "start working on"):
                    h.event(self._chunk(cid, {"content": piece}))
            else:  # announce the whole body, send half of it, close
                full = json.dumps(self._completion(cid, Reply("I will now start working on the task."),
                                                   {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}))
                body = full.encode()
                h.send_raw(200, body[: len(body) // 2], "application/json", close=True, length=len(body))
            h.close_connection = True
        elif failure.kind == "slow_503":
            time.sleep(self.chaos_delay)
            h.send_json(503, error_body("chaos: the server is overloaded, try again later", "server_error"))
        else:  # pragma: no cover - make_persona checks the kinds
            raise ValueError(f"unknown chaos kind {failure.kind!r}")
