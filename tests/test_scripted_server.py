"""The scripted model server: its routes, the oracle persona and the text tool format. The other personas, chaos,
replay, slots, the loopback-only rule and serve() are in test_scripted_personas.py."""

import http.client
import json
import re

import pytest
from scripted_client import SUITE, chat, continue_with, only_call, request, solution_text, user

from sandbox.servers.scripted import ORACLE_DONE, Conversation, ScriptedServer, make_persona


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

