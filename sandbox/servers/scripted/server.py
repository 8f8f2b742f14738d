"""The scripted model server: a deterministic OpenAI-compatible chat server on 127.0.0.1, standard library only.

Routes: POST /v1/chat/completions (streaming or not), GET /v1/models, GET /health, and GET /props with
total_slots when slots are set, as llama.cpp reports them (each also without the /v1 prefix). The persona
(personas.py) decides each reply from the request's messages alone; this module speaks the wire format: JSON
replies, server-sent events, usage counts, max_tokens, latency, slots, pacing (a time to first token and a token
rate, so a client's measured speed can be checked against a set one) and chaos's failures. Never imports dagster.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TextIO

from sandbox.servers.scripted.personas import (
    CHAOS_KINDS,
    Conversation,
    Failure,
    Persona,
    Reply,
    ToolFormat,
    as_constrained,
    as_text_format,
    make_persona,
)

LOOPBACK = "127.0.0.1"
ACTION_SCHEMA = "kbench_action"  # sandbox/agents/constrained.py SCHEMA_NAME (the scripted server imports no agent)
CONTENT_PIECE_CHARS = 24  # a streamed text arrives in pieces of this many characters
ARGUMENTS_PIECE_CHARS = 64  # and a tool call's arguments in pieces of this many
CHARS_PER_TOKEN = 4  # the rough token count of usage, and of max_tokens
MAX_BODY_BYTES = 64 * 1024 * 1024


def check_host(host: str) -> str:
    """The address to bind: loopback only, since anything that reaches the server can drive an agent."""
    if host in (LOOPBACK, "localhost"):
        return LOOPBACK
    raise ValueError(f"the scripted server binds {LOOPBACK} only, refusing host {host!r}")


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def error_body(message: str, type_: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


class _BadRequest(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    app: ScriptedServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive for plain replies; streams close the connection at their end
    # Headers and body go out as two small writes: with Nagle's algorithm the body then waits for the client's
    # delayed ACK (~40 ms per plain reply), a cost no real server has and every chat-only kind would measure.
    disable_nagle_algorithm = True
    server: _HTTPServer
    server_version = "kbench-scripted"
    sys_version = ""

    # --- plumbing -----------------------------------------------------------------------------------------

    def log_message(self, format, *args):  # noqa: A002 - the name BaseHTTPRequestHandler uses
        pass  # no access log: the verbose log has one line per chat request instead

    def log_error(self, format, *args):  # noqa: A002
        self.server.app._log_http(self.address_string(), format % args)

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        return path[3:] if path.startswith("/v1/") else path

    def send_json(self, status: int, obj: dict, close: bool = False) -> None:
        body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_raw(status, body, "application/json", close=close)

    def send_raw(self, status: int, body: bytes, ctype: str, close: bool = False, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def start_events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the end of the stream is the end of the connection
        self.end_headers()
        self.close_connection = True

    def event(self, data: dict | str) -> None:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        self.wfile.write(f"data: {text}\n\n".encode("utf-8"))
        self.wfile.flush()

    def reset(self) -> None:
        """Drop the connection with a TCP reset and no response at all."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()

    def read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
                if len(out) > MAX_BODY_BYTES:
                    raise _BadRequest(413, "request body too large")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise _BadRequest(400, "bad Content-Length") from None
        if length > MAX_BODY_BYTES:
            raise _BadRequest(413, "request body too large")
        return self.rfile.read(length) if length > 0 else b""

    # --- routes -------------------------------------------------------------------------------------------

    def do_GET(self):  # noqa: N802 - the name http.server dispatches to
        route = self._route()
        if route == "/health":
            self.send_json(200, {"status": "ok"})
        elif route == "/props" and self.server.app.slots:
            self.send_json(200, {"total_slots": self.server.app.slots, "model_alias": self.server.app.model_id})
        elif route == "/models":
            app = self.server.app
            self.send_json(200, {"object": "list", "data": [
                {"id": app.model_id, "object": "model", "created": app.created, "owned_by": "kbench"}]})
        else:
            self.send_json(404, error_body(f"no route GET {self.path}", code="not_found"))

    def do_POST(self):  # noqa: N802
        try:
            body = self.read_body()
        except _BadRequest as exc:
            self.send_json(exc.status, error_body(str(exc)), close=True)
            return
        if self._route() == "/chat/completions":
            try:
                self.server.app._chat(self, body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went away mid-reply
        else:
            self.send_json(404, error_body(f"no route POST {self.path}", code="not_found"))


class ScriptedServer:
    """A scripted model server in a background thread; use it as a context manager.

    >>> with ScriptedServer(persona="oracle", port=0) as srv:
    ...     srv.url  # http://127.0.0.1:PORT/v1, the base URL an OpenAI client takes
    """

    def __init__(
        self,
        persona: str | Persona = "oracle",
        *,
        host: str = LOOPBACK,
        port: int = 0,
        model_id: str | None = None,
        latency: float = 0.0,
        slots: int | None = None,
        suite="kbench",
        tool_format: ToolFormat = "native",
        replay_path: str | Path | None = None,
        chaos_delay: float = 2.0,
        chaos_kinds=CHAOS_KINDS,
        verbose: bool = False,
        log: TextIO | None = None,
        ttft_s: float = 0.0,
        token_rate: float = 0.0,
        reject_formats: tuple[str, ...] = (),
    ):
        self.host = check_host(host)
        if tool_format not in ("native", "text"):
            raise ValueError(f"tool_format must be 'native' or 'text', got {tool_format!r}")
        if slots is not None and slots < 1:
            raise ValueError(f"slots must be at least 1 (or None for unlimited), got {slots}")
        if latency < 0 or chaos_delay < 0:
            raise ValueError("latency and chaos_delay must not be negative")
        if not (math.isfinite(ttft_s) and ttft_s >= 0):
            raise ValueError(f"ttft_s (seconds to the first token) must be a finite number >= 0, got {ttft_s!r}")
        if not token_rate >= 0:  # NaN fails this too
            raise ValueError(f"token_rate (tokens per second, 0 for no pacing) must be >= 0, got {token_rate!r}")
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be 0..65535, got {port}")
        self.persona: Persona = (make_persona(persona, suite=suite, replay_path=replay_path, chaos_kinds=chaos_kinds)
                                 if isinstance(persona, str) else persona)
        self.persona_name = self.persona.name
        self.model_id = model_id or f"scripted-{self.persona_name}"
        self.requested_port = port
        self.latency = float(latency)
        self.slots = slots
        self.tool_format = tool_format
        self.chaos_delay = float(chaos_delay)
        self.ttft_s = float(ttft_s)
        self.token_rate = float(token_rate)
        # response_format types refused with HTTP 400, as a server without structured output does
        self.reject_formats = tuple(reject_formats)
        self.formats_seen: list[str | None] = []  # per chat request: the response_format type it asked
        self.verbose = verbose
        self.log = log
        self.created = int(time.time())
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self._count_lock = threading.Lock()
        self._chat_requests = 0
        self._first_request = self._last_reply = 0.0  # monotonic; 0: none yet
        self.sampling_seen: list[dict] = []  # per chat request: the temperature, top_p and seed it carried
        self._in_flight = self._max_in_flight = 0
        self._queued = self._max_queued = 0
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- life cycle ---------------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            return self
        httpd = _HTTPServer((self.host, self.requested_port), _Handler)
        httpd.app = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"scripted-{self.persona_name}-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the scripted server is not running")
        return self._httpd.server_address[1]

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """The base URL for OpenAI clients: http://127.0.0.1:PORT/v1."""
        return f"{self.root_url}/v1"

    @property
    def chat_requests(self) -> int:
        """How many chat requests arrived so far (failed and refused ones included)."""
        return self._chat_requests

    @property
    def busy_s(self) -> float:
        """Seconds from the first chat request's arrival to the end of the last reply written (a throughput
        bench's window, free of the client's start-up and its storing of results)."""
        return max(0.0, self._last_reply - self._first_request)

    @property
    def max_in_flight(self) -> int:
        """The most chat requests worked on at once so far (the latency and the persona's reply; not the wait for
        a slot, nor the writing of the reply, which a client may see end after its next request began)."""
        return self._max_in_flight

    @property
    def max_queued(self) -> int:
        """The most chat requests waiting for a slot at once so far (with slots: the server's own queue)."""
        return self._max_queued

    # --- logging ------------------------------------------------------------------------------------------

    def _say(self, line: str) -> None:
        print(line, file=self.log or sys.stderr, flush=True)

    def _log_http(self, client: str, line: str) -> None:
        if self.verbose:
            self._say(f"[scripted {self.persona_name}] {client} {line}")

    # --- chat ---------------------------------------------------------------------------------------------

    def _work_on(self, conv: Conversation):
        with self._count_lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            if self.latency:
                time.sleep(self.latency)
            return self.persona.respond(conv)
        finally:
            with self._count_lock:
                self._in_flight -= 1

    def _chat(self, h: _Handler, body: bytes) -> None:
        with self._count_lock:
            self._chat_requests += 1
            n = self._chat_requests
            self._first_request = self._first_request or time.monotonic()
        try:
            req = self._parse(body)
        except _BadRequest as exc:
            h.send_json(exc.status, error_body(str(exc)))
            if self.verbose:
                self._say(f"[scripted {self.persona_name}] #{n} refused: {exc}")
            return
        with self._count_lock:  # what the harness set, so a test can see that every path sends its sampling
            self.sampling_seen.append({k: req[k] for k in ("temperature", "top_p", "seed") if k in req})
        fmt = req.get("response_format") if isinstance(req.get("response_format"), dict) else None
        with self._count_lock:
            self.formats_seen.append(fmt.get("type") if fmt else None)
        if fmt and fmt.get("type") in self.reject_formats:
            h.send_json(400, error_body(f"response_format type {fmt.get('type')!r} is not supported by this server"))
            return
        conv = Conversation(req["messages"], fmt)
        stream = bool(req.get("stream"))
        include_usage = stream and bool((req.get("stream_options") or {}).get("include_usage"))
        max_tokens = req.get("max_completion_tokens") or req.get("max_tokens")
        max_tokens = max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else None
        with self._count_lock:
            self._queued += 1
            self._max_queued = max(self._max_queued, self._queued)
        with self._slots or contextlib.nullcontext():  # held while the reply is paced and written, as a real server
            with self._count_lock:
                self._queued -= 1
            start = time.monotonic() + self.latency  # the pacing clock: the slot is held and the latency has passed
            try:
                result = self._work_on(conv)
            except Exception as exc:  # a persona bug: say so to the client instead of dropping the connection
                h.send_json(500, error_body(f"scripted persona {self.persona_name!r} failed: {exc!r}", "server_error"))
                self._say(f"[scripted {self.persona_name}] #{n} persona error: {exc!r}")
                return
            if self.verbose:
                self._say(f"[scripted {self.persona_name}] #{n} turn={conv.assistant_turns} "
                          f"{'stream' if stream else 'plain'}: {result.note}")
            if isinstance(result, Failure):
                self._fail(h, result, stream)
                return
            reply = as_text_format(result) if self.tool_format == "text" else result
            if fmt and (fmt.get("json_schema") or {}).get("name") == ACTION_SCHEMA and not req.get("tools"):
                reply = as_constrained(result)  # the builtin agent's constrained format: one JSON action a reply
            limit = max_tokens * CHARS_PER_TOKEN if max_tokens else None
            if limit and reply.content and not reply.tool_calls and len(reply.content) > limit:
                reply = Reply(reply.content[:limit], (), "length", reply.note)
            cid = "chatcmpl-" + hashlib.sha256(json.dumps(req["messages"], sort_keys=True).encode()).hexdigest()[:24]
            usage = self._usage(req, reply)
            if stream:
                self._stream(h, cid, reply, usage if include_usage else None, start, usage["completion_tokens"])
            else:
                self._sleep_until(start + self._generation_s(usage["completion_tokens"]))
                h.send_json(200, self._completion(cid, reply, usage))
            with self._count_lock:
                self._last_reply = time.monotonic()

    def _parse(self, body: bytes) -> dict:
        try:
            req = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _BadRequest(400, f"the request body is not valid JSON: {exc}") from None
        if not isinstance(req, dict):
            raise _BadRequest(400, "the request body must be a JSON object")
        messages = req.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
            raise _BadRequest(400, "'messages' must be a non-empty list of message objects")
        return req

    def _usage(self, req: dict, reply: Reply) -> dict:
        prompt = json.dumps(req.get("messages"), ensure_ascii=False) + json.dumps(req.get("tools") or [])
        completion = (reply.content or "") + "".join(c.name + c.arguments_json for c in reply.tool_calls)
        p, c = max(1, estimate_tokens(prompt)), max(1, estimate_tokens(completion))
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}

    def _completion(self, cid: str, reply: Reply, usage: dict) -> dict:
        message: dict = {"role": "assistant", "content": reply.content}
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

    def _stream(self, h: _Handler, cid: str, reply: Reply, usage: dict | None, start: float | None = None,
                completion_tokens: int = 1) -> None:
        with_usage = usage is not None
        pieces: list[dict] = []  # the deltas that carry generated text, in order
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

    def _fail(self, h: _Handler, failure: Failure, stream: bool) -> None:
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


def serve(
    persona: str = "oracle",
    *,
    host: str = LOOPBACK,
    port: int = 8765,
    model_id: str | None = None,
    latency: float = 0.0,
    slots: int | None = None,
    suite="kbench",
    tool_format: ToolFormat = "native",
    replay_path: str | Path | None = None,
    chaos_delay: float = 2.0,
    verbose: bool = False,
    out: TextIO | None = None,
    ttft_s: float = 0.0,
    token_rate: float = 0.0,
    reject_formats: tuple[str, ...] = (),
) -> int:
    """Run a scripted server in the foreground until Ctrl-C or SIGTERM; returns the exit status (0).

    Configuration errors (unknown persona, bad replay file, a host other than 127.0.0.1, port in use) raise
    before anything is served: ValueError (ReplayFileError is one) or OSError. Once listening, one line goes to
    `out` (stdout by default): `scripted server: persona P, model M, at http://127.0.0.1:PORT/v1`.
    """
    srv = ScriptedServer(persona, host=host, port=port, model_id=model_id, latency=latency, slots=slots,
                         suite=suite, tool_format=tool_format, replay_path=replay_path, chaos_delay=chaos_delay,
                         verbose=verbose, ttft_s=ttft_s, token_rate=token_rate, reject_formats=reject_formats)
    stop = threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        srv.start()
        print(f"scripted server: persona {srv.persona_name}, model {srv.model_id}, at {srv.url}",
              file=out or sys.stdout, flush=True)
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
