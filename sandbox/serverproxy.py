"""A loopback proxy between pi and the model server: it holds the API key and it watches every reply.

Two jobs pi cannot do for us. The key: everything inside the sandbox (the model's own bash commands too) can
read pi's environment and config, so pi talks to this proxy with a per-session token and the proxy adds the
real key. The verdict: pi's client retries some failures and accepts a stream that was cut short as a final
answer, so only the wire shows whether the server misbehaved. The proxy records, per session token, whether
each chat reply was whole (a finish reason, valid JSON) or broken (5xx, reset, malformed, cut short).
"""

from __future__ import annotations

import http.client
import json
import shutil
import socketserver
import tempfile
import threading
import urllib.parse
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
               "authorization", "proxy-authorization", "content-length", "accept-encoding"}


class _Watch:
    """Follows one reply as it passes: SSE lines or a JSON body."""

    def __init__(self, streaming: bool):
        self.streaming, self.buf, self.finish, self.problem = streaming, b"", False, None

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
        for choice in obj.get("choices") or []:
            if choice.get("finish_reason"):
                self.finish = True
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
        return None


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
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self):
                proxy._handle(self)

            do_GET = do_POST = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        # The same proxy on a Unix socket, for sandboxes without a network (sandbox/netrelay.py relays to it). The
        # sandboxed session runs as another uid, so the socket is open to all, as the loopback port already is.
        self.socket_dir = Path(tempfile.mkdtemp(prefix="kbench-proxy-"))
        self.socket_dir.chmod(0o755)
        self.socket_path = self.socket_dir / "proxy.sock"
        self.unix_server = _UnixHTTPServer(str(self.socket_path), Handler)
        self.socket_path.chmod(0o666)
        self.unix_thread = threading.Thread(target=self.unix_server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def chat_log(self, token: str) -> list[str | None]:
        with self._lock:
            return list(self._log.get(token, []))

    def last_reply_problem(self, token: str) -> str | None:
        """The problem with the last chat reply of a session: that reply is the one the session ended on."""
        log = self.chat_log(token)
        return log[-1] if log else None

    def _note(self, token: str, problem: str | None) -> None:
        with self._lock:
            self._log.setdefault(token, []).append(problem)

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        token = (h.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        is_chat = h.command == "POST" and h.path.rstrip("/").endswith("/chat/completions")
        streaming = False
        if is_chat and body:
            try:
                streaming = bool(json.loads(body).get("stream"))
            except ValueError:
                pass
        conn_cls = http.client.HTTPSConnection if self.upstream.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(self.upstream.hostname, self.upstream.port, timeout=900)
        path = self.upstream.path.removesuffix("/v1") + h.path
        headers = {k: v for k, v in h.headers.items() if k.lower() not in HOP_HEADERS}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            conn.request(h.command, path, body=body, headers=headers)
            resp = conn.getresponse()
        except OSError as exc:
            if is_chat:
                self._note(token, f"server unreachable: {exc}")
            h.send_error(502, "upstream unreachable")
            return
        watch = _Watch(streaming) if is_chat else None
        problem = None
        try:
            h.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in HOP_HEADERS:
                    h.send_header(k, v)
            h.send_header("Transfer-Encoding", "chunked")
            h.send_header("Connection", "close")
            h.end_headers()
            try:
                while chunk := resp.read1(65536):
                    if watch:
                        watch.feed(chunk)
                    h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    h.wfile.flush()
            except (http.client.IncompleteRead, http.client.HTTPException, ConnectionError) as exc:
                problem = f"the connection broke during the reply: {type(exc).__name__}"
            # The verdict is noted before the last chunk goes out: once the agent has the whole reply (and may
            # exit at once), the session's record is already complete.
            self._verdict(token, watch, resp.status, problem)
            watch = None
            h.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the agent hung up
        finally:
            conn.close()
            h.close_connection = True
            self._verdict(token, watch, resp.status, problem)

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

    def __enter__(self) -> ServerProxy:
        self.thread.start()
        self.unix_thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.unix_server.shutdown()
        self.unix_server.server_close()
        shutil.rmtree(self.socket_dir, ignore_errors=True)
