"""The scripted model server: wire format, personas, chaos, replay, slots and the loopback-only rule."""

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

from sandbox.servers.scripted import (
    CHAOS_KINDS,
    HOSTILE_PLAN,
    LIAR_REPLY,
    NULL_REPLY,
    ORACLE_DONE,
    REPLAY_END,
    Conversation,
    ReplayFileError,
    ScriptedServer,
    make_persona,
)
from task_defs import load_suite

SUITE = load_suite("kbench")

# --- a small HTTP client (stdlib only) ----------------------------------------------------------------------


def request(srv, method, path, body=None, timeout=10):
    """(status, raw body bytes) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {} if body is None else {"Content-Type": "application/json"}
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def events(raw: bytes) -> list[str]:
    """The data of each server-sent event."""
    return [line[len("data: "):] for line in raw.decode().split("\n\n") if line.startswith("data: ")]


def chat(srv, messages, stream=False, **extra):
    """A chat completion; a stream is assembled into the same shape as a plain reply, plus the raw chunks."""
    body = {"model": "any", "messages": messages, "stream": stream, **extra}
    status, raw = request(srv, "POST", "/v1/chat/completions", body)
    assert status == 200, raw
    if not stream:
        return json.loads(raw)
    datas = events(raw)
    assert datas[-1] == "[DONE]"
    chunks = [json.loads(d) for d in datas[:-1]]
    content, calls, finish, usage = "", {}, None, None
    for ch in chunks:
        assert ch["object"] == "chat.completion.chunk"
        if ch.get("usage"):
            usage = ch["usage"]
        for choice in ch["choices"]:
            delta = choice["delta"]
            content += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(tc["index"], {"id": None, "type": "function",
                                                      "function": {"name": "", "arguments": ""}})
                slot["id"] = tc.get("id") or slot["id"]
                slot["function"]["name"] += tc.get("function", {}).get("name") or ""
                slot["function"]["arguments"] += tc.get("function", {}).get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {"choices": [{"message": message, "finish_reason": finish}], "usage": usage, "chunks": chunks}


def user(text):
    return [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": text}]


def continue_with(messages, reply, result="ok"):
    """The messages after the agent ran the reply's tool call and reports its result."""
    msg = reply["choices"][0]["message"]
    out = messages + [{"role": "assistant", "content": msg["content"], "tool_calls": msg.get("tool_calls", [])}]
    for tc in msg.get("tool_calls", []):
        out.append({"role": "tool", "tool_call_id": tc["id"], "content": result})
    return out


def only_call(reply):
    msg = reply["choices"][0]["message"]
    assert len(msg["tool_calls"]) == 1
    call = msg["tool_calls"][0]
    assert call["type"] == "function" and call["id"]
    return call["function"]["name"], json.loads(call["function"]["arguments"])


def solution_text(task_id, name):
    return (SUITE.get(task_id).solution_dir / name).read_bytes().decode()


@pytest.fixture(scope="module")
def oracle():
    with ScriptedServer("oracle", port=0) as srv:
        yield srv


# --- the routes ---------------------------------------------------------------------------------------------


def test_health_and_models(oracle):
    assert oracle.url == f"http://127.0.0.1:{oracle.port}/v1"
    status, raw = request(oracle, "GET", "/health")
    assert status == 200 and json.loads(raw) == {"status": "ok"}
    status, raw = request(oracle, "GET", "/v1/models")
    models = json.loads(raw)
    assert status == 200 and models["object"] == "list"
    assert [(m["id"], m["object"], m["owned_by"]) for m in models["data"]] == [("scripted-oracle", "model", "kbench")]
    assert request(oracle, "GET", "/nowhere")[0] == 404


def test_bad_requests_get_a_400(oracle):
    conn = http.client.HTTPConnection("127.0.0.1", oracle.port, timeout=5)
    conn.request("POST", "/v1/chat/completions", body=b"{not json", headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 400 and "not valid JSON" in json.loads(resp.read())["error"]["message"]
    conn.close()
    status, raw = request(oracle, "POST", "/v1/chat/completions", {"model": "m", "messages": []})
    assert status == 400 and "messages" in json.loads(raw)["error"]["message"]


# --- oracle ---------------------------------------------------------------------------------------------------


def test_oracle_fizz_plain():
    with ScriptedServer("oracle", port=0, model_id="my-model") as srv:
        messages = user("Please do this task:\n" + SUITE.get("fizz").prompt)
        first = chat(srv, messages)
        assert first["object"] == "chat.completion" and first["model"] == "my-model"
        assert first["choices"][0]["finish_reason"] == "tool_calls"
        assert first["choices"][0]["message"]["content"] is None
        name, args = only_call(first)
        assert (name, args) == ("write", {"path": "fizz.py", "content": solution_text("fizz", "fizz.py")})
        usage = first["usage"]
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]

        second = chat(srv, continue_with(messages, first, "Wrote fizz.py"))
        assert second["choices"][0]["message"] == {"role": "assistant", "content": ORACLE_DONE}
        assert second["choices"][0]["finish_reason"] == "stop"
        assert srv.chat_requests == 2


def test_oracle_fizz_stream(oracle):
    # the prompt re-wrapped and sent as a list of parts still matches
    prompt = " ".join(SUITE.get("fizz").prompt.split())
    messages = [{"role": "developer", "content": "Be brief."},
                {"role": "user", "content": [{"type": "text", "text": "Task:"}, {"type": "text", "text": prompt}]}]
    first = chat(oracle, messages, stream=True, stream_options={"include_usage": True})
    chunks = first["chunks"]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert sum(1 for ch in chunks if ch["choices"] and ch["choices"][0]["delta"].get("tool_calls")) > 2  # in pieces
    assert only_call(first) == ("write", {"path": "fizz.py", "content": solution_text("fizz", "fizz.py")})

    second = chat(oracle, continue_with(messages, first), stream=True)  # no include_usage: no usage chunk
    assert second["choices"][0]["message"]["content"] == ORACLE_DONE
    assert second["choices"][0]["finish_reason"] == "stop"
    assert all(ch["choices"] for ch in second["chunks"])


def test_oracle_chain_applies_the_reference_on_the_first_prompt_only(oracle):
    task = SUITE.get("counterrors_steps")
    first_prompt, second_prompt = task.all_prompts
    messages = user(first_prompt)
    reply = chat(oracle, messages)
    assert only_call(reply) == ("bash", {"command": solution_text("counterrors_steps", "solve.sh"), "timeout": 120})
    done = chat(oracle, continue_with(messages, reply))
    assert done["choices"][0]["message"]["content"] == ORACLE_DONE

    later = chat(oracle, user(second_prompt))
    assert later["choices"][0]["message"] == {"role": "assistant", "content": ORACLE_DONE}


def test_oracle_unknown_prompt(oracle):
    reply = chat(oracle, user("Write me a poem about the sea."))
    msg = reply["choices"][0]["message"]
    assert "tool_calls" not in msg and "matches no task" in msg["content"]


def test_oracle_matches_every_prompt_of_the_suite_and_replays_every_reference():
    persona = make_persona("oracle")
    for task in SUITE.tasks:
        files = sorted(p.relative_to(task.solution_dir).as_posix() for p in task.solution_dir.rglob("*")
                       if p.is_file() and p.name != "solve.sh")
        for i, prompt in enumerate(task.all_prompts):
            m = persona.find(Conversation(user(prompt)))
            assert (m.task.id, m.prompt_index) == (task.id, i)
        plan = persona.index.plan_for(persona.find(Conversation(user(task.all_prompts[0]))))
        assert [c.arguments["path"] for c in plan if c.name == "write"] == files
        has_script = (task.solution_dir / "solve.sh").is_file()
        assert (plan[-1].name == "bash") == has_script, task.id


def test_text_tool_format():
    with ScriptedServer("oracle", port=0, tool_format="text") as srv:
        messages = user(SUITE.get("fizz").prompt)
        for stream in (False, True):
            reply = chat(srv, messages, stream=stream)
            msg = reply["choices"][0]["message"]
            assert "tool_calls" not in msg and reply["choices"][0]["finish_reason"] == "stop"
            blocks = re.findall(r"```json\n(.*?)\n```", msg["content"], re.S)
            assert len(blocks) == 1
            assert json.loads(blocks[0]) == {"name": "write", "arguments": {
                "path": "fizz.py", "content": solution_text("fizz", "fizz.py")}}
        # the agent reports the result as a user message: one assistant turn, so the plan is done
        after = messages + [{"role": "assistant", "content": msg["content"]}, {"role": "user", "content": "ok"}]
        assert chat(srv, after)["choices"][0]["message"]["content"] == ORACLE_DONE


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
