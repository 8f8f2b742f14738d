"""Nothing in pi's sandbox can reach into pi, speak to the model in pi's name, or turn its own doing into infra.

The model's commands run as pi's uid. Before: they could ptrace pi or write its memory (and make it report a
connection error, or forge its turns, tokens and final message), read the session token from their environment and
send the proxy a request it judged broken, then kill pi: the attempt was recorded as infra, out of the scores.
"""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import needs_bwrap
from test_agent_runs import run

from sandbox.agents.serverproxy import ServerProxy
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS
from sandbox.isolation.session import run_session
from sandbox.servers.scripted import ScriptedServer

# Run by the model's bash tool call: PI is bash's parent, pi itself; the relay is pi's parent.
TRACE_PROBE = r"""PI=$PPID python3 - <<'EOF'
import ctypes, errno, os, signal, socket, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE = 0x4206  # attaches without stopping the target; leaving ends the trace
pi = int(os.environ["PI"])
relay = int(next(l.split()[1] for l in open(f"/proc/{pi}/status") if l.startswith("PPid:")))

def report(name, allowed):
    print(f"{name}: {'ALLOWED' if allowed else 'refused'}", flush=True)

def attempt(name, fn):
    try:
        report(name, fn())
    except OSError:
        report(name, False)

class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

def vm_read(pid):
    buf = ctypes.create_string_buffer(8)
    here, there = IoVec(ctypes.addressof(buf), 8), IoVec(0x10000, 8)
    n = libc.process_vm_readv(pid, ctypes.byref(here), 1, ctypes.byref(there), 1, 0)
    return n >= 0 or ctypes.get_errno() not in (errno.EPERM, errno.EACCES)  # EFAULT: allowed, just a bad address

def inspector():
    os.kill(pi, signal.SIGUSR1)  # node opens its inspector on 127.0.0.1:9229
    for _ in range(20):
        try:
            socket.create_connection(("127.0.0.1", 9229), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False

def trace_own_child():
    child = os.fork()
    if child == 0:
        time.sleep(5)
        os._exit(0)
    try:
        return libc.ptrace(PTRACE_SEIZE, child, 0, 0) == 0
    finally:
        os.kill(child, signal.SIGKILL)

attempt("pi inspector", inspector)  # first: a signal to a process being traced would wait on the tracer
attempt("ptrace pi", lambda: libc.ptrace(PTRACE_SEIZE, pi, 0, 0) == 0)
attempt("ptrace relay", lambda: libc.ptrace(PTRACE_SEIZE, relay, 0, 0) == 0)
attempt("process_vm_readv pi", lambda: vm_read(pi))
attempt("read pi mem", lambda: open(f"/proc/{pi}/mem", "rb") and True)
attempt("write pi mem", lambda: open(f"/proc/{pi}/mem", "r+b") and True)
attempt("read pi environ", lambda: len(open(f"/proc/{pi}/environ", "rb").read()) > 0)
attempt("read pi fds", lambda: len(os.listdir(f"/proc/{pi}/fd")) > 0)
attempt("read relay mem", lambda: open(f"/proc/{relay}/mem", "rb") and True)
attempt("read relay environ", lambda: len(open(f"/proc/{relay}/environ", "rb").read()) > 0)
attempt("pidfd_getfd pi", lambda: libc.syscall(438, os.pidfd_open(pi), 1, 0) >= 0)
attempt("ptrace own child", trace_own_child)
EOF"""
TRACE_CHECKS = 12

# Sends its own chat request through the relay, with the session token if it can find one. The request would crash
# the scripted server (stream_options must be an object), so a proxy that forwarded it recorded a broken reply.
FORGE = r"""PI=$PPID python3 - <<'EOF'
import json, os, socket
token, source = os.environ.get("KBENCH_PI_KEY"), "environment"
if not token:
    try:
        env = dict(v.split(b"=", 1) for v in open(f"/proc/{os.environ['PI']}/environ", "rb").read().split(b"\0")
                   if b"=" in v)
        token, source = env[b"KBENCH_PI_KEY"].decode(), "pi"
    except (OSError, KeyError):
        token, source = "", "nowhere"
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "forged"}], "stream": True,
                   "stream_options": [1]})
s = socket.create_connection(("127.0.0.1", 18080), timeout=30)
s.sendall((f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
           f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
           f"Connection: close\r\n\r\n{body}").encode())
reply = b""
while chunk := s.recv(65536):
    reply += chunk
status = reply.split(b"\r\n")[0].decode()
print(f"token from {source}; reply {status}", flush=True)
EOF"""


def pi_attempt(tmp_path, command: str):
    """One pi attempt of task clamp whose model runs `command`, then says it is done."""
    script = tmp_path / "replay.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in [
        {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"content": "Done."}]) + "\n")
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, "pi", "clamp", tmp_path, workers=1)
        served = srv.chat_requests
    [r] = results
    rec = run_dir / "base" / "clamp" / "s1"
    return r, rec, served


def tool_output(rec) -> str:
    for line in (rec / "events.jsonl").read_text().splitlines():
        ev = json.loads(line)
        if ev.get("type") == "pi" and ev["event"].get("type") == "tool_execution_end":
            return ev["event"]["result"]["content"][0]["text"]
    raise AssertionError("the command's output is not in the record")


def events_of(rec, kind: str) -> list[dict]:
    return [e for e in map(json.loads, (rec / "events.jsonl").read_text().splitlines()) if e.get("type") == kind]


@needs_bwrap
def test_commands_cannot_trace_pi_or_reach_into_its_memory(tmp_path):
    r, rec, _ = pi_attempt(tmp_path, TRACE_PROBE)
    out = tool_output(rec)
    lines = [line for line in out.splitlines() if line.endswith((": refused", ": ALLOWED"))]
    assert len(lines) == TRACE_CHECKS, out
    assert [line for line in lines if line.endswith("ALLOWED")] == []
    # pi was not disturbed: it ran the script to its end, and the attempt was scored
    assert r["turns"] == 2 and r["final_message"] == "Done." and not r["infra"] and r["outcome"] == "nofile"


@needs_bwrap
def test_a_request_from_another_process_of_the_sandbox_is_refused_and_recorded(tmp_path):
    r, rec, served = pi_attempt(tmp_path, FORGE)
    out = tool_output(rec)
    assert "token from nowhere" in out and "403" in out, out
    assert served == 2  # pi's own two requests: the forged one never reached the server
    [faults] = events_of(rec, "sandbox_faults")
    assert "refused POST /v1/chat/completions" in faults["faults"][0]
    assert r["turns"] == 2 and not r["infra"] and r["outcome"] == "nofile"


@needs_bwrap
def test_a_command_that_kills_pi_after_a_forged_request_is_scored_not_infra(tmp_path):
    """The attack as found: a request the proxy would judge broken, then pi killed, so the session ends on it."""
    r, rec, _ = pi_attempt(tmp_path, f"({FORGE}\n) > forged.txt\nkill -9 $PPID")
    assert not r["infra"] and r["requeues"] == 0 and r["outcome"] == "nofile"
    assert r["stop_reason"] == "killed" and r["infra_error"] is None
    assert "403" in (rec / "workdir" / "forged.txt").read_text()
    assert events_of(rec, "sandbox_faults")


@needs_bwrap
@pytest.mark.parametrize("filtered", [True, False])
def test_the_seccomp_filter_is_what_refuses_tracing_in_every_sandbox(work, filtered):
    """Any sandboxed session (hidden tests, setup scripts, the builtin agent's commands), not only pi's."""
    probe = ("import ctypes, os, time\nlibc = ctypes.CDLL(None, use_errno=True)\nchild = os.fork()\n"
             "if child == 0:\n    time.sleep(5)\n    os._exit(0)\n"
             "print('seize', libc.ptrace(0x4206, child, 0, 0), ctypes.get_errno())\nos.kill(child, 9)\n")
    res = run_session(["python3", "-c", probe], work, limits=AGENT_LIMITS.with_(timeout_s=60),
                      cfg=IsolationConfig(mode="bwrap", seccomp=filtered))
    assert res.returncode == 0, res.tail
    assert ("seize -1 1" if filtered else "seize 0 0") in res.tail  # EPERM is 1


class GatedUpstream:
    """A model server whose streamed reply sends one chunk, then waits for `go` before it finishes."""

    def __init__(self):
        self.go, self.requests = threading.Event(), 0
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b'data: {"choices": [{"delta": {"content": "I will"}}]}\n\n')
                self.wfile.flush()
                outer.go.wait(30)
                self.wfile.write(b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n')

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}/v1"


def _request(token: str) -> bytes:
    body = json.dumps({"stream": True}).encode()
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    got = b""
    while marker not in got:
        chunk = sock.recv(65536)
        assert chunk, f"the connection ended before {marker!r}: {got!r}"
        got += chunk
    return got


def _wait_for(check, what: str):
    done = threading.Event()
    for _ in range(100):
        if check():
            return
        done.wait(0.05)
    raise AssertionError(f"never happened: {what}")


def test_an_agent_that_hangs_up_during_a_reply_is_no_server_fault():
    up = GatedUpstream()
    with ServerProxy(up.url) as proxy:
        port = int(proxy.url.split(":")[2].split("/")[0])
        client = socket.create_connection(("127.0.0.1", port), timeout=10)
        client.sendall(_request("s"))
        _read_until(client, b"I will")
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # reset on close
        client.close()
        up.go.set()
        _wait_for(lambda: proxy.sandbox_log("s"), "the hang-up was recorded")
        assert proxy.chat_log("s") == []  # no verdict on the server for a reply the agent never took
        assert "hung up" in proxy.sandbox_log("s")[0]


def test_a_sessions_socket_forwards_only_its_token_and_knows_what_waits_on_the_server(tmp_path):
    up = GatedUpstream()
    with ServerProxy(up.url) as proxy, proxy.session("tok-a") as path:
        def connect():
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(10)
            s.connect(str(path))
            return s

        foreign = connect()
        foreign.sendall(_request("tok-b"))
        assert _read_until(foreign, b"\r\n").startswith(b"HTTP/1.1 403")
        assert up.requests == 0 and proxy.chat_log("tok-b") == [] and proxy.chat_log("tok-a") == []
        assert "refused POST /v1/chat/completions" in proxy.sandbox_log("tok-a")[0]

        assert proxy.waiting_s("tok-a") is None
        own = connect()
        own.sendall(_request("tok-a"))
        _read_until(own, b"I will")
        _wait_for(lambda: proxy.waiting_s("tok-a") is not None, "the proxy waits on the server")
        up.go.set()
        reply = b""
        while chunk := own.recv(65536):
            reply += chunk
        assert b"[DONE]" in reply and up.requests == 1
        assert proxy.chat_log("tok-a") == [None] and proxy.waiting_s("tok-a") is None
