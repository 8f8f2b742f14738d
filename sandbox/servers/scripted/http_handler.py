"""The scripted server's HTTP side: the request handler (routes, body reading, JSON replies, server-sent events, a
dropped connection) and the threading server that carries the ScriptedServer it serves. What a chat request gets
back is decided in server.py; this module only moves bytes. Standard library only; never imports dagster.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server module imports this one; the name is only needed for the annotation
    from sandbox.servers.scripted.server import ScriptedServer

MAX_BODY_BYTES = 64 * 1024 * 1024


def error_body(message: str, type_: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


class BadRequest(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class ScriptedHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    app: ScriptedServer


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive for plain replies; streams close the connection at their end
    # Headers and body go out as two small writes: with Nagle's algorithm the body then waits for the client's
    # delayed ACK (~40 ms per plain reply), a cost no real server has and every chat-only kind would measure.
    disable_nagle_algorithm = True
    server: ScriptedHTTPServer
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
                    raise BadRequest(413, "request body too large")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise BadRequest(400, "bad Content-Length") from None
        if length > MAX_BODY_BYTES:
            raise BadRequest(413, "request body too large")
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
        except BadRequest as exc:
            self.send_json(exc.status, error_body(str(exc)), close=True)
            return
        if self._route() == "/chat/completions":
            try:
                self.server.app._chat(self, body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went away mid-reply
        else:
            self.send_json(404, error_body(f"no route POST {self.path}", code="not_found"))
