"""A small standard-library client for the scripted server's tests: one request on a fresh connection, the data of
server-sent events, a chat reply (a stream assembled into the shape of a plain one), and the conversations the
tests send (a user's first message, the turn after a tool call, the one call of a reply)."""

import http.client
import json

from bundled import SUITE


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
