"""The scripted model server's other personas (null, liar, hostile, chaos, replay), max_tokens, slots and latency,
the options it refuses (a host off the loopback among them), serve() in the foreground and an OpenAI client.
The routes and the oracle persona are in test_scripted_server.py."""

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import REPO
from scripted_client import SUITE, chat, continue_with, events, only_call, request, solution_text, user

from sandbox.servers.scripted import (
    CHAOS_KINDS,
    HOSTILE_PLAN,
    LIAR_REPLY,
    NULL_REPLY,
    REPLAY_END,
    ReplayFileError,
    ScriptedServer,
)

# --- null, liar, hostile ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("persona, text", [("null", NULL_REPLY), ("liar", LIAR_REPLY)])
def test_text_only_personas(persona, text):
    with ScriptedServer(persona, port=0) as srv:
        messages = user(SUITE.get("fizz").prompt)
        for stream in (False, True):
            reply = chat(srv, messages, stream=stream)
            assert reply["choices"][0]["message"] == {"role": "assistant", "content": text}
            assert reply["choices"][0]["finish_reason"] == "stop"
        # a later turn is the same text
        later = messages + [{"role": "assistant", "content": text}, {"role": "user", "content": "really?"}]
        assert chat(srv, later)["choices"][0]["message"]["content"] == text


def test_max_tokens_cuts_the_text():
    with ScriptedServer("liar", port=0) as srv:
        reply = chat(srv, user("x"), max_tokens=3)
        assert reply["choices"][0]["message"]["content"] == LIAR_REPLY[:12]
        assert reply["choices"][0]["finish_reason"] == "length"
        streamed = chat(srv, user("x"), stream=True, max_completion_tokens=2)
        assert streamed["choices"][0]["message"]["content"] == LIAR_REPLY[:8]
        assert streamed["choices"][0]["finish_reason"] == "length"


def test_hostile_plan_is_served_in_order_and_never_run_here():
    # only the replies are inspected: running these commands outside the sandbox would hurt this machine
    with ScriptedServer("hostile", port=0) as srv:
        messages = user("anything")
        seen = []
        for _ in range(len(HOSTILE_PLAN) + 1):
            reply = chat(srv, messages)
            msg = reply["choices"][0]["message"]
            if not msg.get("tool_calls"):
                break
            seen.append(only_call(reply))
            messages = continue_with(messages, reply, "done")
    commands = [args["command"] for name, args in seen if name == "bash"]
    writes = [args["path"] for name, args in seen if name == "write"]
    assert len(seen) == len(HOSTILE_PLAN) and msg["content"]
    assert commands[-1] == ":(){ :|:& };:"  # the fork bomb last: it ends the session
    assert "/tmp/kb-hostile-write.txt" in writes and "../escape.txt" in writes
    joined = "\n".join(commands)
    for needle in ("timeout 8 yes", "3 * 1024 ** 3", "setsid sleep 3600", "test_task.py", "/proc/1/environ",
                   "/etc/kb-hostile", "../kb-hostile-escape", "~/kb-hostile"):
        assert needle in joined


# --- chaos ------------------------------------------------------------------------------------------------------


def classify(srv, stream):
    """What an HTTP client sees of one chaos reply."""
    body = {"model": "m", "messages": user("hi"), "stream": stream}
    try:
        status, raw = request(srv, "POST", "/v1/chat/completions", body, timeout=5)
    except http.client.IncompleteRead:
        return "truncated"
    except (ConnectionError, http.client.RemoteDisconnected):
        return "connection_error"
    if status != 200:
        return f"http_{status}"
    if not stream:
        try:
            json.loads(raw)
        except json.JSONDecodeError:
            return "invalid_json"
        return "ok"
    datas = events(raw)
    try:
        [json.loads(d) for d in datas if d != "[DONE]"]
    except json.JSONDecodeError:
        return "invalid_json"
    return "ok" if datas and datas[-1] == "[DONE]" else "truncated"


def test_chaos_rotates_through_its_failures():
    with ScriptedServer("chaos", port=0, chaos_delay=0.05) as srv:
        n = len(CHAOS_KINDS)
        streamed = [classify(srv, stream=True) for _ in range(n)]
        plain = [classify(srv, stream=False) for _ in range(n)]
        assert srv.chat_requests == 2 * n
        expected = ["http_500", "connection_error", "invalid_json", "truncated", "http_503"]
        assert streamed == expected and plain == expected
        # the truncated stream has content but neither a finish_reason nor [DONE]
        while srv.chat_requests % n != CHAOS_KINDS.index("truncated"):
            classify(srv, stream=False)
        status, raw = request(srv, "POST", "/v1/chat/completions", {"messages": user("hi"), "stream": True})
        chunks = [json.loads(d) for d in events(raw)]
        assert status == 200 and chunks and all(ch["choices"][0]["finish_reason"] is None for ch in chunks)
        # the other routes still answer
        assert request(srv, "GET", "/health")[0] == 200
        assert request(srv, "GET", "/v1/models")[0] == 200


# --- replay -------------------------------------------------------------------------------------------------


def test_replay_serves_the_lines_in_order(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join([
        json.dumps({"content": "Let me look."}),
        json.dumps({"content": None,
                    "tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "hi\n"}}]}),
        "",
        json.dumps({"content": "cut short", "finish_reason": "length"}),
    ]) + "\n")
    with ScriptedServer("replay", port=0, replay_path=script) as srv:
        assert srv.model_id == "scripted-replay"
        messages = user("go")
        r1 = chat(srv, messages)
        assert r1["choices"][0]["message"]["content"] == "Let me look."
        messages = continue_with(messages, r1) + [{"role": "user", "content": "go on"}]
        r2 = chat(srv, messages, stream=True)
        assert only_call(r2) == ("write", {"path": "a.txt", "content": "hi\n"})
        assert r2["choices"][0]["finish_reason"] == "tool_calls"
        messages = continue_with(messages, r2)
        r3 = chat(srv, messages)
        assert r3["choices"][0]["message"]["content"] == "cut short"
        assert r3["choices"][0]["finish_reason"] == "length"
        messages = continue_with(messages, r3) + [{"role": "user", "content": "and?"}]
        assert chat(srv, messages)["choices"][0]["message"]["content"] == REPLAY_END


@pytest.mark.parametrize("bad_line, says", [
    ('{"content": "unterminated', "not valid JSON"),
    ('["a list"]', "must be a JSON object"),
    ('{"tool_calls": [{"arguments": {}}]}', "name"),
    ('{"content": "x", "finish_reason": "done"}', "finish_reason"),
    ('{}', "needs 'content' or 'tool_calls'"),
])
def test_replay_malformed_file_names_the_line(tmp_path, bad_line, says):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"content": "fine"}\n' + bad_line + "\n")
    with pytest.raises(ReplayFileError) as err:
        ScriptedServer("replay", port=0, replay_path=script)
    assert f"{script}:2:" in str(err.value) and says in str(err.value)


def test_replay_needs_a_file():
    with pytest.raises(ValueError, match="replay"):
        ScriptedServer("replay", port=0)


# --- slots, latency, host ---------------------------------------------------------------------------------------


def concurrent_wall(srv, n=3):
    results = []

    def one():
        results.append(chat(srv, user("x"))["choices"][0]["message"]["content"])

    threads = [threading.Thread(target=one) for _ in range(n)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert results == [NULL_REPLY] * n
    return time.monotonic() - start


def test_slots_serialize_requests():
    with ScriptedServer("null", port=0, latency=0.3, slots=1) as srv:
        assert 0.85 <= concurrent_wall(srv) < 2.0
    with ScriptedServer("null", port=0, latency=0.3, slots=3) as srv:
        assert 0.28 <= concurrent_wall(srv) < 0.7


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.com"])
def test_refuses_a_non_loopback_host(host):
    with pytest.raises(ValueError, match="127.0.0.1"):
        ScriptedServer("null", host=host)


def test_unknown_persona_and_options():
    with pytest.raises(ValueError, match="unknown persona"):
        ScriptedServer("genius")
    with pytest.raises(ValueError, match="tool_format"):
        ScriptedServer("null", tool_format="xml")
    with pytest.raises(ValueError, match="slots"):
        ScriptedServer("null", slots=0)


# --- serve(), the foreground entry point of `kbench serve-scripted` ---------------------------------------------


def test_serve_runs_until_sigterm():
    code = "from sandbox.servers.scripted import serve; raise SystemExit(serve('liar', port=0))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        line = proc.stdout.readline()
        m = re.search(r"at http://127\.0\.0\.1:(\d+)/v1", line)
        assert m, line + proc.stderr.read()
        conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=5)
        conn.request("GET", "/health")
        assert conn.getresponse().status == 200
        conn.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_openai_client_if_installed():
    openai = pytest.importorskip("openai")
    with ScriptedServer("oracle", port=0) as srv:
        client = openai.OpenAI(base_url=srv.url, api_key="unused", max_retries=0)
        assert [m.id for m in client.models.list()] == ["scripted-oracle"]
        messages = user(SUITE.get("fizz").prompt)
        reply = client.chat.completions.create(model="scripted-oracle", messages=messages)
        call = reply.choices[0].message.tool_calls[0]
        assert call.function.name == "write"
        assert json.loads(call.function.arguments)["content"] == solution_text("fizz", "fizz.py")
        stream = client.chat.completions.create(model="scripted-oracle", messages=messages, stream=True,
                                                stream_options={"include_usage": True})
        args = "".join(ch.choices[0].delta.tool_calls[0].function.arguments or ""
                       for ch in stream if ch.choices and ch.choices[0].delta.tool_calls)
        assert json.loads(args)["path"] == "fizz.py"
