"""pi's proxy: the key is added outside the sandbox, and every reply is judged on the wire."""

import json
import socket
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import wait_for
from test_agent_runs import run

from sandbox.agents.serverproxy import ServerProxy
from sandbox.servers.scripted import ScriptedServer


class Upstream:
    """A one-trick server: records the Authorization header, answers with a fixed body."""

    def __init__(self, body: bytes, status: int = 200, content_type: str = "application/json"):
        self.seen = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.seen.append(self.headers.get("Authorization"))
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}/v1"


def post(url, token, stream=False):
    req = urllib.request.Request(url + "/chat/completions", data=json.dumps({"stream": stream}).encode(),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


GOOD = json.dumps({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}).encode()
CUT_STREAM = b'data: {"choices": [{"delta": {"content": "I will now"}}]}\n\n'
WHOLE_STREAM = CUT_STREAM + b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'


@pytest.mark.parametrize("body, status, ctype, problem", [
    (GOOD, 200, "application/json", None),
    (b"{not json", 200, "application/json", "malformed JSON reply"),
    (b'{"error": "boom"}', 500, "application/json", "HTTP 500 from the server"),
    (b'{"error": "context too long"}', 400, "application/json", None),
    (WHOLE_STREAM, 200, "text/event-stream", None),
    (CUT_STREAM, 200, "text/event-stream", "the reply stream ended without a finish reason"),
])
def test_replies_are_judged_and_the_key_is_added(body, status, ctype, problem):
    up = Upstream(body, status, ctype)
    with ServerProxy(up.url, api_key="sk-real") as proxy:
        got_status, got_body = post(proxy.url, "session-a", stream=ctype == "text/event-stream")
        assert got_status == status and got_body == body
        assert proxy.last_reply_problem("session-a") == problem
        assert proxy.chat_log("session-b") == []
    assert up.seen == ["Bearer sk-real"]


def test_an_unreachable_server_is_a_problem():
    up = Upstream(GOOD)
    url = up.url
    up.srv.shutdown()
    up.srv.server_close()
    with ServerProxy(url) as proxy:
        status, _ = post(proxy.url, "s")
        assert status == 502
        assert proxy.last_reply_problem("s").startswith("server unreachable")


def test_the_key_never_enters_pis_sandbox(tmp_path):
    script = tmp_path / "replay.jsonl"
    script.write_text(json.dumps({"tool_calls": [{"name": "bash", "arguments": {
        "command": "env; cat $PI_CODING_AGENT_DIR/models.json; K=sk-do-not; "
                   "grep -rs \"$K-leak\" /opt /tmp /home /proc/self/environ | head -3"}}]})
        + "\n" + json.dumps({"content": "done"}) + "\n")
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, "pi", "fizz", tmp_path, api_key="sk-do-not-leak")
    [r] = results
    assert r["tool_calls"] == 1 and not r["infra"]
    events = (run_dir / "base" / "fizz" / "s1" / "events.jsonl").read_text()
    assert "KBENCH_PI_KEY" in events  # the command ran and printed the environment
    assert "sk-do-not-leak" not in events
    for f in run_dir.rglob("*"):
        if f.is_file():
            assert b"sk-do-not-leak" not in f.read_bytes(), f


def test_an_agent_that_hangs_up_on_a_broken_reply_leaves_the_fault_the_servers():
    """An agent stops reading at a malformed chunk and hangs up; on a busy machine that comes before the proxy has
    passed the rest of the reply on. The server broke the reply: that stays the server's fault (the session is
    infra), never the sandbox's hang-up (which would make it the model's)."""
    hung_up = threading.Event()

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b'data: {"choices": [{"delta": {"cont\n\n')
            self.wfile.flush()
            hung_up.wait(10)
            for _ in range(5):  # the rest arrives after the agent has gone: the proxy's writes to it fail
                self.wfile.write(b'data: {"choices": [{"delta": {"content": "x"}}]}\n\n')
                self.wfile.flush()
                time.sleep(0.05)
            self.wfile.write(b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n')

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with ServerProxy(f"http://127.0.0.1:{srv.server_address[1]}/v1") as proxy:
            host, port = proxy.url.removeprefix("http://").split("/")[0].split(":")
            body = json.dumps({"stream": True}).encode()
            with socket.create_connection((host, int(port)), timeout=10) as conn:
                conn.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s\r\n"
                             b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                seen = b""
                while b"cont" not in seen:
                    seen += conn.recv(4096)
            hung_up.set()
            wait_for(lambda: proxy.chat_log("s") or proxy.sandbox_log("s"), 20, "the proxy's record of the reply")
            assert proxy.sandbox_log("s") == []
            assert proxy.last_reply_problem("s") == "malformed JSON in the reply stream"
    finally:
        srv.shutdown()
        srv.server_close()
