"""The scripted model server: a deterministic OpenAI-compatible chat server on 127.0.0.1, standard library only.

Routes: POST /v1/chat/completions (streaming or not), GET /v1/models, GET /health, and GET /props with
total_slots when slots are set, as llama.cpp reports them (each also without the /v1 prefix). The persona
(personas.py) decides each reply from the request's messages alone; this module holds ScriptedServer (its
settings, life cycle, counters and the handling of one chat request: parsing, slots, latency, max_tokens) and
serve(). The HTTP handler is in http_handler.py; how a reply is written (JSON, server-sent events, usage, pacing
to a time to first token and a token rate, chaos's failures) is in replies.py. Never imports dagster.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Literal, TextIO, get_args

from sandbox.servers.scripted.http_handler import BadRequest, ScriptedHandler, ScriptedHTTPServer, error_body
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
from sandbox.servers.scripted.replies import CHARS_PER_TOKEN, ReplyWriter

LOOPBACK = "127.0.0.1"
ACTION_SCHEMA = "kbench_action"  # sandbox/agents/constrained.py SCHEMA_NAME (the scripted server imports no agent)
# When a reply carries reasoning (reasoning_content and reasoning tokens in its usage): never, only when the request
# asks a reasoning_effort other than "none" (a model that thinks only when asked), or always
Thinks = Literal["never", "when_asked", "always"]
THINKS: tuple[str, ...] = get_args(Thinks)


def check_host(host: str) -> str:
    """The address to bind: loopback only, since anything that reaches the server can drive an agent."""
    if host in (LOOPBACK, "localhost"):
        return LOOPBACK
    raise ValueError(f"the scripted server binds {LOOPBACK} only, refusing host {host!r}")


class ScriptedServer(ReplyWriter):
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
        thinks: Thinks = "never",
    ):
        self.host = check_host(host)
        if thinks not in THINKS:
            raise ValueError(f"thinks must be one of {', '.join(THINKS)}, got {thinks!r}")
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
        self.thinks = thinks
        self.efforts_seen: list[str | None] = []  # per chat request: the reasoning_effort it carried, if any
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
        self._httpd: ScriptedHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- life cycle ---------------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            return self
        httpd = ScriptedHTTPServer((self.host, self.requested_port), ScriptedHandler)
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

    def _chat(self, h: ScriptedHandler, body: bytes) -> None:
        with self._count_lock:
            self._chat_requests += 1
            n = self._chat_requests
            self._first_request = self._first_request or time.monotonic()
        try:
            req = self._parse(body)
        except BadRequest as exc:
            h.send_json(exc.status, error_body(str(exc)))
            if self.verbose:
                self._say(f"[scripted {self.persona_name}] #{n} refused: {exc}")
            return
        with self._count_lock:  # what the harness set, so a test can see that every path sends its sampling
            self.sampling_seen.append({k: req[k] for k in ("temperature", "top_p", "seed") if k in req})
            self.efforts_seen.append(req.get("reasoning_effort"))
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
            reasoning = self._reasoning(req)
            usage = self._usage(req, reply, reasoning)
            if stream:
                self._stream(h, cid, reply, usage if include_usage else None, start, usage["completion_tokens"],
                             reasoning)
            else:
                self._sleep_until(start + self._generation_s(usage["completion_tokens"]))
                h.send_json(200, self._completion(cid, reply, usage, reasoning))
            with self._count_lock:
                self._last_reply = time.monotonic()

    def _reasoning(self, req: dict) -> str:
        """The reasoning a reply carries, as `thinks` decides from the request's reasoning_effort ("" for none)."""
        effort = req.get("reasoning_effort")
        if self.thinks == "always" or (self.thinks == "when_asked" and effort not in (None, "none")):
            return f"Scripted reasoning (effort {effort or 'server default'}): the reply follows from the request."
        return ""

    def _parse(self, body: bytes) -> dict:
        try:
            req = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadRequest(400, f"the request body is not valid JSON: {exc}") from None
        if not isinstance(req, dict):
            raise BadRequest(400, "the request body must be a JSON object")
        messages = req.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
            raise BadRequest(400, "'messages' must be a non-empty list of message objects")
        return req


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
    thinks: Thinks = "never",
) -> int:
    """Run a scripted server in the foreground until Ctrl-C or SIGTERM; returns the exit status (0).

    Configuration errors (unknown persona, bad replay file, a host other than 127.0.0.1, port in use) raise
    before anything is served: ValueError (ReplayFileError is one) or OSError. Once listening, one line goes to
    `out` (stdout by default): `scripted server: persona P, model M, at http://127.0.0.1:PORT/v1`.
    """
    srv = ScriptedServer(persona, host=host, port=port, model_id=model_id, latency=latency, slots=slots,
                         suite=suite, tool_format=tool_format, replay_path=replay_path, chaos_delay=chaos_delay,
                         verbose=verbose, ttft_s=ttft_s, token_rate=token_rate, reject_formats=reject_formats,
                         thinks=thinks)
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
