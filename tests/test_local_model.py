"""The local model engine's llama.cpp server: options refused before anything starts, a port in use, and the real
server with the 0.5b pack (marked real_model; skipped with the reason when xllamacpp or the model is missing).
How the model is assembled from its part packages is in test_model_pack.py."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from sandbox.servers import llama as lm
from sandbox.servers import model_pack as mp
from sandbox.servers.probe import reported_slots


def test_bad_arguments_are_refused_before_anything_starts():
    with pytest.raises(mp.LocalModelError, match="unknown model pack"):
        lm.LocalModelServer("7b")
    with pytest.raises(mp.LocalModelError, match="trained for"):
        lm.LocalModelServer("0.5b", ctx=65536)
    with pytest.raises(mp.LocalModelError, match="parallel"):
        lm.LocalModelServer("0.5b", parallel=0)
    with pytest.raises(mp.LocalModelError, match="not started"):
        _ = lm.LocalModelServer("0.5b").url


@pytest.mark.skipif(not lm.xllamacpp_available(), reason="xllamacpp is not installed")
def test_a_port_in_use_is_refused_clearly(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        server = lm.LocalModelServer("0.5b", port=port, model_path=tmp_path / "unused.gguf")
        with pytest.raises(mp.LocalModelError, match=f"port {port} .* already in use"):
            server.start()
        assert server.pid is None


# ---------------------------------------------------------------------------------------------------------
# The real server (0.5b pack)


def get(url: str, timeout: float = 10.0) -> tuple[int, dict]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, json.loads(r.read())


def post(url: str, body: dict, timeout: float = 120.0):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=timeout)


def model_or_skip() -> Path:
    if not lm.xllamacpp_available():
        pytest.skip(f"xllamacpp is not installed (pip install {lm.XLLAMACPP_PIN})")
    try:
        return mp.ensure_model("0.5b")
    except mp.LocalModelError as e:
        pytest.skip(f"the 0.5b model is not available: {e}")


def gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)  # the server leads its own process group
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(scope="module")
def server():
    model = model_or_skip()
    s = lm.LocalModelServer("0.5b", port=0, model_path=model)
    s.start()
    pid = s.pid
    yield s
    s.stop()
    assert gone(pid)


@pytest.mark.real_model
def test_health_models_and_context(server):
    assert server.url == f"http://127.0.0.1:{server.port}/v1"
    assert server.model_id == "qwen2.5-coder-0.5b-instruct"
    assert get(server.base_url + "/health") == (200, {"status": "ok"})
    _, models = get(server.url + "/models")
    assert server.model_id in [m["id"] for m in models["data"]]
    _, props = get(server.base_url + "/props")
    assert props["default_generation_settings"]["n_ctx"] >= lm.MIN_AGENT_CTX
    assert props["total_slots"] == 1
    assert reported_slots(server.url) == 1  # what a run uses as the server's slot count when none is given
    assert props["chat_template_caps"]["supports_tools"] is True


CHAT = {"messages": [{"role": "user", "content": "Reply with one word: hello"}], "max_tokens": 16,
        "temperature": 0}


@pytest.mark.real_model
def test_chat_completion(server):
    with post(server.url + "/chat/completions", {"model": server.model_id, **CHAT}) as r:
        answer = json.loads(r.read())
    text = answer["choices"][0]["message"]["content"]
    assert isinstance(text, str) and text.strip()
    assert answer["model"] == server.model_id


@pytest.mark.real_model
def test_chat_completion_streaming(server):
    pieces, done = [], False
    with post(server.url + "/chat/completions", {"model": server.model_id, "stream": True, **CHAT}) as r:
        assert r.headers.get_content_type() == "text/event-stream"
        for raw in r:
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            if line == "data: [DONE]":
                done = True
                break
            for choice in json.loads(line[6:])["choices"]:
                pieces.append(choice.get("delta", {}).get("content") or "")
    assert done
    assert "".join(pieces).strip()


TOOLS = [{"type": "function", "function": {
    "name": "write_file", "description": "Write a text file in the working folder",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                   "required": ["path", "content"]}}}]


@pytest.mark.real_model
def test_a_tool_request_answers_with_a_call_or_text(server, record_property):
    body = {"model": server.model_id, "tools": TOOLS, "max_tokens": 200, "temperature": 0,
            "messages": [{"role": "system", "content": "You are a coding agent. Use the tools."},
                         {"role": "user", "content": "Create hello.py that prints hello."}]}
    with post(server.url + "/chat/completions", body) as r:
        message = json.loads(r.read())["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    text = message.get("content") or ""
    form = "native tool_calls" if calls else ("fenced json call in text" if "```" in text and "write_file" in text
                                              else "plain text")
    record_property("tool_call_form", form)
    print(f"0.5b tool request answered with: {form}: {json.dumps(message)[:300]}")
    assert calls or text.strip()


@pytest.mark.real_model
def test_stop_leaves_no_process_behind():
    model = model_or_skip()
    s = lm.LocalModelServer("0.5b", port=0, model_path=model)
    with s:
        pid = s.pid
        assert psutil.Process(pid).is_running()
        log = s.log_path
    assert s.pid is None and not s.running
    assert gone(pid)
    assert not log.exists()  # the server's temp folder is gone too


@pytest.mark.real_model
def test_server_stops_itself_when_its_parent_dies(tmp_path):
    model = model_or_skip()
    info = tmp_path / "info.json"
    code = (f"import json, os; from sandbox.servers import llama as lm\n"
            f"s = lm.LocalModelServer('0.5b', port=0, model_path={str(model)!r}).start()\n"
            f"open({str(info)!r}, 'w').write(json.dumps({{'pid': s.pid, 'tmpdir': str(s._tmpdir)}}))\n"
            f"os._exit(0)  # dies without stop() and without atexit\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, cwd=Path(lm.__file__).parents[2])
    started = json.loads(info.read_text())
    pid = started["pid"]
    deadline = time.monotonic() + 15
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not gone(pid):
        os.killpg(pid, 9)
        pytest.fail("the orphaned server kept running")
    assert not Path(started["tmpdir"]).exists()


@pytest.mark.real_model
def test_a_given_log_path_is_kept_and_the_temp_folder_is_not(tmp_path):
    model = model_or_skip()
    log = tmp_path / "server.log"
    with lm.LocalModelServer("0.5b", port=0, model_path=model, log_path=log) as s:
        status_dir = s._tmpdir
    assert "listening on" in log.read_text()
    assert not status_dir.exists()


@pytest.mark.real_model
@pytest.mark.timeout(180)
def test_serve_runs_until_sigterm_then_stops_cleanly():
    model_or_skip()
    code = "import sys; from sandbox.servers.llama import serve; sys.exit(serve('0.5b', port=0, parallel=2))"
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                            cwd=Path(lm.__file__).parents[2])
    try:
        url = None
        for line in proc.stderr:
            if line.startswith("serving "):
                url = line.split(" at ", 1)[1].split()[0]
                break
        assert url and url.startswith("http://127.0.0.1:") and url.endswith("/v1"), url
        [child] = psutil.Process(proc.pid).children()
        base = url.removesuffix("/v1")
        assert get(base + "/health")[0] == 200
        _, props = get(base + "/props")
        assert props["total_slots"] == 2
        assert props["default_generation_settings"]["n_ctx"] == lm.DEFAULT_CTX  # per slot
        proc.send_signal(15)
        assert proc.wait(timeout=30) == 0
        assert "stopping" in proc.stderr.read()
        assert gone(child.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not lm.xllamacpp_available(), reason="xllamacpp is not installed")
def test_a_server_that_cannot_start_says_why_and_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 4096)
    server = lm.LocalModelServer("0.5b", port=0, model_path=bad, startup_timeout=60)
    with pytest.raises(mp.LocalModelError, match=r"exited with code \d+ while starting(.|\n)*last lines") as e:
        server.start()
    assert "failed to load model" in str(e.value)
    assert server.pid is None and not server.running
    assert server.log_path is None  # its own temp folder, log included, is gone
