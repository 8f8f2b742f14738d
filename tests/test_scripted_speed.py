"""The scripted server's pacing: a set time to first token and token rate, as a raw client sees them on the wire.

Every timing assertion is a lower bound (a server cannot be faster than set; a busy machine only makes it slower),
so no test here passes or fails by how loaded the machine is.
"""

import http.client
import json
import threading
import time

import pytest

from sandbox.servers.scripted import ScriptedServer, serve
from task_defs import load_suite

SLACK = 0.005  # seconds: the clocks of client and server, and the round trip, may differ by this much at most
TTFT = 0.2
RATE = 100.0
HELLO = [{"role": "user", "content": "hello"}]  # the oracle's "matches no task" text: a reply of some 20 tokens


def post(srv, body: dict) -> tuple[float, http.client.HTTPResponse, http.client.HTTPConnection]:
    """Send a chat request; (the monotonic instant it was sent, the response, the connection)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    data = json.dumps(body).encode()
    sent = time.monotonic()
    conn.request("POST", "/v1/chat/completions", body=data, headers={"Content-Type": "application/json"})
    return sent, conn.getresponse(), conn


def stream(srv, messages, include_usage=True) -> tuple[float, list[tuple[float, dict | str]]]:
    """A streamed chat read line by line: (sent instant, [(arrival instant, chunk or "[DONE]")])."""
    body = {"model": "any", "messages": messages, "stream": True}
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    sent, resp, conn = post(srv, body)
    assert resp.status == 200
    out = []
    try:
        while True:
            line = resp.readline()
            if not line:
                break
            if line.startswith(b"data: "):
                at = time.monotonic()
                data = line[len(b"data: "):].strip().decode()
                out.append((at, data if data == "[DONE]" else json.loads(data)))
    finally:
        conn.close()
    return sent, out


def plain(srv, messages) -> tuple[float, float, dict]:
    """A non-streamed chat: (sent instant, arrival instant of the whole body, the reply)."""
    sent, resp, conn = post(srv, {"model": "any", "messages": messages})
    try:
        raw = resp.read()
        return sent, time.monotonic(), json.loads(raw)
    finally:
        conn.close()


def generated(chunk) -> bool:
    """Whether a chunk carries generated text: content, or a tool call's name or arguments."""
    if not isinstance(chunk, dict) or not chunk["choices"]:
        return False
    delta = chunk["choices"][0]["delta"]
    if delta.get("content"):
        return True
    return any((tc.get("function") or {}).get("name") or (tc.get("function") or {}).get("arguments")
               for tc in delta.get("tool_calls") or [])


def usage_of(events) -> dict:
    return next(ch["usage"] for _, ch in events if isinstance(ch, dict) and ch.get("usage"))


def without_clock(chunk):
    """A chunk without its `created` second, which may differ between two otherwise equal replies."""
    return chunk if isinstance(chunk, str) else {k: v for k, v in chunk.items() if k != "created"}


def check_paced(sent, events, ttft, rate):
    """The lower bounds of a paced stream; returns (completion tokens, generated-chunk arrival instants)."""
    chunks = [ch for _, ch in events]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}  # the role chunk comes first
    assert not generated(chunks[0])
    c = usage_of(events)["completion_tokens"]
    times = [at for at, ch in events if generated(ch)]
    assert len(times) >= 2
    assert times[0] - sent >= ttft - SLACK
    assert times[-1] - sent >= ttft + (c - 1) / rate - SLACK
    for k, at in enumerate(times):  # each piece no earlier than its even share of the span
        assert at - sent >= ttft + (c - 1) / rate * k / (len(times) - 1) - SLACK
    last = max(i for i, (_, ch) in enumerate(events) if generated(ch))
    tail = chunks[last + 1:]  # the finish chunk, the usage chunk and [DONE] follow the last generated chunk
    assert tail[0]["choices"][0]["finish_reason"] and tail[1]["choices"] == [] and tail[2] == "[DONE]"
    return c, times


# --- streaming ------------------------------------------------------------------------------------------------


def test_stream_of_text_is_paced_no_faster_than_set():
    with ScriptedServer("oracle", port=0, ttft_s=TTFT, token_rate=RATE) as srv:
        sent, events = stream(srv, HELLO)
    c, times = check_paced(sent, events, TTFT, RATE)
    assert c >= 10


def test_stream_of_a_tool_call_is_paced_from_its_name():
    prompt = load_suite("kbench").get("fizz").prompt
    rate = 500.0  # the call is some 80 tokens
    with ScriptedServer("oracle", port=0, ttft_s=0.1, token_rate=rate) as srv:
        sent, events = stream(srv, [{"role": "user", "content": prompt}])
    first = next(ch for _, ch in events if generated(ch))
    assert first["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "write"
    c, _ = check_paced(sent, events, 0.1, rate)
    assert c >= 10


def test_ttft_alone_delays_the_first_piece_and_latency_comes_before_it():
    with ScriptedServer("oracle", port=0, latency=0.1, ttft_s=0.15) as srv:
        sent, events = stream(srv, HELLO)
    times = [at for at, ch in events if generated(ch)]
    assert times[0] - sent >= 0.1 + 0.15 - SLACK


def test_pacing_leaves_the_reply_unchanged():
    with ScriptedServer("oracle", port=0) as fast, ScriptedServer("oracle", port=0, ttft_s=0.05,
                                                                   token_rate=400.0) as slow:
        for include_usage in (True, False):
            _, a = stream(fast, HELLO, include_usage)
            _, b = stream(slow, HELLO, include_usage)
            assert [without_clock(ch) for _, ch in a] == [without_clock(ch) for _, ch in b]
        _, _, a = plain(fast, HELLO)
        _, _, b = plain(slow, HELLO)
        assert without_clock(a) == without_clock(b)
        assert a["usage"]["completion_tokens"] >= 10


def test_pieces_are_scheduled_against_absolute_targets(monkeypatch):
    """The sleeps aim at instants fixed from one start, so a late piece does not push the later ones back."""
    targets = []
    real = ScriptedServer._sleep_until
    monkeypatch.setattr(ScriptedServer, "_sleep_until", staticmethod(lambda t: (targets.append(t), real(t))))
    with ScriptedServer("oracle", port=0, ttft_s=0.05, token_rate=RATE) as srv:
        sent, events = stream(srv, HELLO)
    c = usage_of(events)["completion_tokens"]
    pieces = sum(1 for _, ch in events if generated(ch))
    assert len(targets) == pieces
    span = (c - 1) / RATE
    start = targets[0] - 0.05
    assert start >= sent - SLACK
    for k, t in enumerate(targets):
        assert t == pytest.approx(start + 0.05 + span * k / (pieces - 1), abs=1e-9)


# --- plain replies ----------------------------------------------------------------------------------------------


def test_plain_reply_waits_for_the_whole_generation():
    with ScriptedServer("oracle", port=0, ttft_s=TTFT, token_rate=RATE) as srv:
        sent, arrived, reply = plain(srv, HELLO)
    c = reply["usage"]["completion_tokens"]
    assert c >= 10 and "timings" not in reply
    assert arrived - sent >= TTFT + (c - 1) / RATE - SLACK


def test_plain_reply_with_ttft_alone():
    with ScriptedServer("null", port=0, ttft_s=0.1) as srv:
        sent, arrived, _ = plain(srv, HELLO)
    assert arrived - sent >= 0.1 - SLACK


# --- slots --------------------------------------------------------------------------------------------------------


def test_a_slot_is_held_while_the_reply_is_paced():
    results = []
    with ScriptedServer("null", port=0, slots=1, ttft_s=0.15) as srv:
        start = time.monotonic()
        threads = [threading.Thread(target=lambda: results.append(stream(srv, HELLO))) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
    assert len(results) == 2
    last_done = max(events[-1][0] for _, events in results)
    assert last_done - start >= 2 * 0.15 - SLACK


# --- settings -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, says", [
    ({"ttft_s": -0.1}, "ttft_s"),
    ({"token_rate": -1.0}, "token_rate"),
    ({"ttft_s": float("nan")}, "ttft_s"),
    ({"ttft_s": float("inf")}, "ttft_s"),
    ({"token_rate": float("nan")}, "token_rate"),
])
def test_bad_settings_raise(kwargs, says):
    with pytest.raises(ValueError, match=says):
        ScriptedServer("null", port=0, **kwargs)
    with pytest.raises(ValueError, match=says):  # before anything is served
        serve("null", port=0, **kwargs)


def test_defaults_do_not_pace():
    srv = ScriptedServer("null", port=0)
    assert (srv.ttft_s, srv.token_rate) == (0.0, 0.0)
    assert srv._generation_s(100) == 0.0


def test_cli_passes_ttft_and_token_rate_to_serve(monkeypatch):
    import sandbox.servers.scripted as scripted
    from kbench_dagster.cli import build_parser

    seen = {}
    monkeypatch.setattr(scripted, "serve", lambda persona, **kw: seen.update(kw, persona=persona) or 0)
    args = build_parser().parse_args(["serve-scripted", "--persona", "null", "--ttft", "0.5", "--token-rate", "40"])
    assert (args.ttft, args.token_rate) == (0.5, 40.0)
    assert args.func(args) == 0
    assert seen["persona"] == "null" and (seen["ttft_s"], seen["token_rate"]) == (0.5, 40.0)

    args = build_parser().parse_args(["serve-scripted", "--persona", "null"])
    assert (args.ttft, args.token_rate) == (0.0, 0.0)
    help_text = build_parser()._subparsers._group_actions[0].choices["serve-scripted"].format_help()
    assert "--ttft" in help_text and "--token-rate" in help_text


def test_scripted_endpoints_pass_the_settings_through():
    from kbench_dagster.resources import ScriptedEndpoints

    res = ScriptedEndpoints(persona="null", ttft_s=0.05, token_rate=300.0)
    try:
        res.endpoints()
        assert (res._server.ttft_s, res._server.token_rate) == (0.05, 300.0)
    finally:
        if res._server is not None:
            res._server.stop()
