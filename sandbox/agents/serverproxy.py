"""A loopback proxy between pi and the model server: it holds the API key and it watches every reply.

Two jobs pi cannot do for us. The key: everything inside the sandbox (the model's own bash commands too) can
read pi's config, so pi talks to this proxy with a per-session token and the proxy adds the real key. The verdict:
pi's client retries some failures and accepts a stream that was cut short as a final answer, so only the wire shows
whether the server misbehaved. The proxy records, per session token, whether each chat reply was whole (a finish
reason, valid JSON) or broken by the server (5xx, reset, malformed, cut short).

A sandboxed session reaches the proxy on a Unix socket of its own (`session()`), and only pi holds that session's
token (sandbox/agents/pi.py keeps it from pi's children). A request on the socket without the token came from some
other process of the sandbox: it is refused, never forwarded, and recorded with what else the sandbox side did
that the server did not (an agent that hung up during a reply). Those records say the session's end was the
sandbox's doing, not the server's.
"""

from __future__ import annotations

import contextlib
import hmac
import http.client
import json
import shutil
import socketserver
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sandbox.agents.wire import Stopwatch, is_generated

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
               "authorization", "proxy-authorization", "content-length", "accept-encoding"}
# How long the rest of a reply is awaited after the agent hung up on it, to tell whose fault the hang-up was
DRAIN_S = 5.0


class _Watch:
    """Follows one reply as it passes: SSE lines or a JSON body, and times it (sandbox/agents/wire.py)."""

    def __init__(self, streaming: bool, watch: Stopwatch):
        self.streaming, self.buf, self.finish, self.problem = streaming, b"", False, None
        self.watch, self.usage, self.timings, self.finish_reason = watch, None, None, None

    def feed(self, chunk: bytes) -> None:
        if not self.streaming:
            self.buf += chunk
            return
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            self._line(line.strip())

    def _line(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        data = line[5:].strip()
        if data == b"[DONE]" or self.problem:
            return
        try:
            obj = json.loads(data)
        except ValueError:
            self.problem = "malformed JSON in the reply stream"
            return
        if not isinstance(obj, dict):
            return
        for choice in obj.get("choices") or []:
            if is_generated(choice.get("delta")):
                self.watch.piece()
            if choice.get("finish_reason"):
                self.finish, self.finish_reason = True, choice["finish_reason"]
        self.usage = obj.get("usage") or self.usage
        self.timings = obj.get("timings") or self.timings
        if obj.get("error"):
            self.problem = f"error in the reply stream: {str(obj['error'])[:200]}"

    def verdict(self) -> str | None:
        if self.streaming:
            self._line(self.buf.strip())
            return self.problem or (None if self.finish else "the reply stream ended without a finish reason")
        try:
            obj = json.loads(self.buf or b"null")
        except ValueError:
            return "malformed JSON reply"
        if not isinstance(obj, dict) or not obj.get("choices"):
            return "reply without choices"
        self.usage, self.timings = obj.get("usage"), obj.get("timings")
        self.finish_reason = (obj["choices"][0] or {}).get("finish_reason") if isinstance(obj["choices"], list) \
            else None
        return None

    def speed(self) -> dict:
        return self.watch.done(self.usage if isinstance(self.usage, dict) else None, self.timings,
                               self.finish_reason)


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        conn, _ = super().get_request()
        return conn, ("sandbox", 0)  # handlers expect an (address, port) pair


class ServerProxy:
    def __init__(self, upstream: str, api_key: str | None = None):
        self.upstream = urllib.parse.urlsplit(upstream.rstrip("/"))
        if self.upstream.scheme not in ("http", "https"):
            raise ValueError(f"--url {upstream}: expected http:// or https://")
        self.api_key = api_key
        self._lock = threading.Lock()
        self._log: dict[str, list[str | None]] = {}  # token -> per chat request: None (whole) or the problem
        self._sandbox: dict[str, list[str]] = {}  # token -> what the sandbox side did that the server did not
        self._waits: dict[str, dict[object, float]] = {}  # token -> since when each request waits on the server
        self._speed: dict[str, list[dict]] = {}  # token -> each whole chat reply's timing, as the wire showed it
        # token -> fields set on each of its chat requests (temperature, ..., reasoning_effort)
        self._fields: dict[str, dict] = {}
        self._budget: dict[str, int] = {}  # token -> chat requests it may still make (a task's step limit)
        self._over: set[str] = set()  # tokens that asked past their step limit
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(None))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        # One Unix socket per sandboxed session (netrelay.py relays to it), each in a folder of its own, so a
        # sandbox sees no other session's socket. The session runs as another uid, so the socket is open to all.
        self.socket_dir = Path(tempfile.mkdtemp(prefix="kbench-proxy-"))
        self.socket_dir.chmod(0o755)

    def _handler(self, session_token: str | None) -> type[BaseHTTPRequestHandler]:
        """Handlers for the loopback port (None: any token, for unsandboxed sessions) or for one session's socket."""
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self):
                proxy._handle(self, session_token)

            do_GET = do_POST = _forward

        return Handler

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @contextlib.contextmanager
    def session(self, token: str) -> Iterator[Path]:
        """A Unix socket for one sandboxed session, in a folder of its own: bind that folder into the sandbox. Only
        requests with `token` pass; any other is refused and recorded against the session."""
        folder = Path(tempfile.mkdtemp(dir=self.socket_dir))
        folder.chmod(0o755)
        path = folder / "proxy.sock"
        server = _UnixHTTPServer(str(path), self._handler(token))
        path.chmod(0o666)
        # shutdown() returns only once the loop looks at its flag again: at the default 0.5 s poll, every session's
        # end waited on it for up to half a second (a quarter on average)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        thread.start()
        try:
            yield path
        finally:
            server.shutdown()
            server.server_close()
            shutil.rmtree(folder, ignore_errors=True)

    def chat_log(self, token: str) -> list[str | None]:
        with self._lock:
            return list(self._log.get(token, []))

    def last_reply_problem(self, token: str) -> str | None:
        """The problem with the last chat reply of a session: that reply is the one the session ended on."""
        log = self.chat_log(token)
        return log[-1] if log else None

    def set_request_fields(self, token: str, fields: dict) -> None:
        """Fields for every chat request of a session (sampling, reasoning effort): pi has no flags for them, so
        the proxy sets them on the way, over whatever pi put there."""
        with self._lock:
            self._fields[token] = dict(fields)

    def set_step_limit(self, token: str, requests: int | None) -> None:
        """At most `requests` chat requests for the session; the next one is refused (pi then ends its turn)."""
        with self._lock:
            if requests:
                self._budget[token] = requests

    def over_step_limit(self, token: str) -> bool:
        with self._lock:
            return token in self._over

    def _spend(self, token: str) -> bool:
        """False when the session has no chat request left."""
        with self._lock:
            left = self._budget.get(token)
            if left is None:
                return True
            if left <= 0:
                self._over.add(token)
                return False
            self._budget[token] = left - 1
            return True

    def speed_log(self, token: str) -> list[dict]:
        """Each whole chat reply of a session, timed as it passed (sandbox/agents/wire.py)."""
        with self._lock:
            return list(self._speed.get(token, []))

    def sandbox_log(self, token: str) -> list[str]:
        """What the sandbox side of a session did that the server did not: refused requests, hang-ups."""
        with self._lock:
            return list(self._sandbox.get(token, []))

    def waiting_s(self, token: str) -> float | None:
        """How long the longest-waiting request of a session has been waiting on the server, if one still is."""
        with self._lock:
            starts = list(self._waits.get(token, {}).values())
        return time.monotonic() - min(starts) if starts else None

    def _note(self, token: str, problem: str | None) -> None:
        with self._lock:
            self._log.setdefault(token, []).append(problem)

    def _note_sandbox(self, token: str, what: str) -> None:
        with self._lock:
            self._sandbox.setdefault(token, []).append(what)

    @contextlib.contextmanager
    def _waiting(self, token: str) -> Iterator[None]:
        """While the proxy waits for the server on behalf of a session."""
        key = object()
        with self._lock:
            self._waits.setdefault(token, {})[key] = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                self._waits[token].pop(key, None)

    def _refuse(self, h: BaseHTTPRequestHandler, session_token: str) -> None:
        self._note_sandbox(session_token, f"refused {h.command} {h.path[:200]}: a request without this session's "
                                          "token, from some other process of the sandbox")
        self._send_error(h, 403, "kbench proxy: this request does not come from the agent", "forbidden")

    @staticmethod
    def _send_error(h: BaseHTTPRequestHandler, status: int, message: str, kind: str) -> None:
        body = json.dumps({"error": {"message": message, "type": kind}}).encode()
        h.close_connection = True
        with contextlib.suppress(OSError):  # the sender may not wait for the answer
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(body)

    def _handle(self, h: BaseHTTPRequestHandler, session_token: str | None) -> None:
        token = (h.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        if session_token is not None and not hmac.compare_digest(token.encode(), session_token.encode()):
            self._refuse(h, session_token)
            return
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        is_chat = h.command == "POST" and h.path.rstrip("/").endswith("/chat/completions")
        streaming = False
        if is_chat and body:
            try:
                request = json.loads(body)
            except ValueError:
                request = None
            if not self._spend(token):
                self._send_error(h, 400, "kbench: this task's step limit is reached: no more model requests in "
                                         "this session", "step_limit")
                return
            if isinstance(request, dict):
                streaming = bool(request.get("stream"))
                with self._lock:
                    fields = self._fields.get(token)
                if fields:
                    body = json.dumps({**request, **fields}).encode()
        conn_cls = http.client.HTTPSConnection if self.upstream.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(self.upstream.hostname, self.upstream.port, timeout=900)
        path = self.upstream.path.removesuffix("/v1") + h.path
        headers = {k: v for k, v in h.headers.items() if k.lower() not in HOP_HEADERS}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        watch = _Watch(streaming, Stopwatch(streaming)) if is_chat else None
        try:
            with self._waiting(token):
                conn.request(h.command, path, body=body, headers=headers)
                resp = conn.getresponse()
        except OSError as exc:
            if is_chat:
                self._note(token, f"server unreachable: {exc}")
            h.send_error(502, "upstream unreachable")
            return
        problem = None  # what the server did wrong, as the reply came in
        try:
            h.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in HOP_HEADERS:
                    h.send_header(k, v)
            h.send_header("Transfer-Encoding", "chunked")
            h.send_header("Connection", "close")
            h.end_headers()
            while True:
                try:
                    with self._waiting(token):
                        chunk = resp.read1(65536)
                except (OSError, http.client.HTTPException) as exc:
                    problem = f"the connection broke during the reply: {type(exc).__name__}"
                    break
                if not chunk:
                    break
                if watch:
                    watch.feed(chunk)
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                h.wfile.flush()
            # The verdict is noted before the last chunk goes out: once the agent has the whole reply (and may
            # exit at once), the session's record is already complete.
            self._verdict(token, watch, resp.status, problem)
            watch = None
            h.wfile.write(b"0\r\n\r\n")
        except OSError:
            # Writing to the agent failed: it hung up (or was killed) with the reply not yet through. An agent
            # hangs up on a reply the server broke (a bad chunk, an error event) as soon as it reads the fault, and
            # on a busy machine that comes before the proxy has passed the rest on: so the rest of the reply is
            # read and judged, and only a reply the server sent whole and sound makes the hang-up the sandbox's.
            if watch is not None:
                whole, broke = (True, problem) if problem else self._drain(resp, watch)
                fault = broke or (watch.verdict() if whole else None)
                if whole and (resp.status >= 500 or fault):
                    self._verdict(token, watch, resp.status, fault)
                else:
                    self._note_sandbox(token, f"the agent hung up during the reply to {h.command} {h.path[:200]}")
        finally:
            conn.close()
            h.close_connection = True

    @staticmethod
    def _drain(resp: http.client.HTTPResponse, watch: _Watch) -> tuple[bool, str | None]:
        """The rest of a reply nobody waits for any more, fed to the watch: (whether it all came within DRAIN_S,
        what broke on the server's side). A reply still coming after that is judged by nobody: not whole."""
        deadline = time.monotonic() + DRAIN_S
        with contextlib.suppress(OSError, AttributeError):
            resp.fp.raw._sock.settimeout(DRAIN_S)
        while time.monotonic() < deadline:
            try:
                chunk = resp.read1(65536)
            except TimeoutError:
                return False, None
            except (OSError, http.client.HTTPException) as exc:
                return True, f"the connection broke during the reply: {type(exc).__name__}"
            if not chunk:
                return True, None
            watch.feed(chunk)
        return False, None

    def _verdict(self, token: str, watch: _Watch | None, status: int, problem: str | None) -> None:
        if watch is None:  # not a chat reply, or already judged
            return
        if status >= 500:
            problem = f"HTTP {status} from the server"
        elif status >= 400:
            problem = None  # the server refused the request: the agent sees and reports it
        else:
            problem = problem or watch.verdict()
        self._note(token, problem)
        if status < 400 and problem is None:
            with self._lock:
                self._speed.setdefault(token, []).append(watch.speed())

    def __enter__(self) -> ServerProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.socket_dir, ignore_errors=True)
