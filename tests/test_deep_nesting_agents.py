"""A tool call whose arguments nest thousands of brackets deep is the model's malformed call under both agents,
never infra: the builtin agent reads call arguments with bounded depth and tells the model, as for any broken call;
pi parses them itself, and its event lines are read with bounded depth, a line too deep kept as text."""

import json

import pytest
from bundled import SUITE

from sandbox.agents.record import EventLog, parse_event, read_events
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.oracle import reference_plan
from task_defs.loader import select

TASK = "clamp"
N = 3000
DEEP_ARGS = '{"command": ' + "[" * N + "]" * N + "}"


def _script(path, deep: str) -> None:
    """A replay whose first reply is the deep call, then the task's reference solution, then a final word."""
    [task] = select(SUITE, TASK)
    lines = [{"tool_calls": [{"name": "bash", "arguments": deep}]}]
    lines += [{"tool_calls": [{"name": c.name, "arguments": c.arguments}]} for c in reference_plan(task)]
    lines.append({"content": "Done."})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _run(tmp_path, agent: str, **kw):
    script = tmp_path / "replay.jsonl"
    _script(script, DEEP_ARGS)
    results = []
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=select(SUITE, TASK),
                       url=srv.url, agent=agent, runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                       workers=1, timeout_s=120, **kw)
        Scheduler(spec, SUITE, on_result=results.append).run()
    [r] = results
    return r, tmp_path / "runs" / "r" / "base" / TASK / "s1"


def test_builtin_tells_the_model_its_deep_call_is_broken_and_the_task_still_passes(tmp_path):
    r, rec = _run(tmp_path, "builtin", tool_format="native")
    assert not r["infra"] and not r["infra_error"], r["infra_error"]
    assert r["outcome"] == "pass"
    assert r["tool_format_errors"] == 1
    broken = [ev for ev in read_events(rec / "events.jsonl") if ev["type"] == "tool_format_error"]
    assert len(broken) == 1 and "nested" in broken[0]["message"]


def test_builtin_constrained_action_nested_deep_is_the_models_error():
    from sandbox.agents.constrained import parse_action

    what, _name, _args, why = parse_action('{"tool": "bash", "arguments": ' + DEEP_ARGS + "}")
    assert what == "error" and "nested" in why


@pytest.mark.slow
def test_pi_run_with_a_deep_call_is_not_infra(tmp_path):
    """pi refuses the call itself and echoes the arguments, pretty-printed, in several events: tens of megabytes,
    so the session stops at its output cap before the solution comes. The record is the model's, never infra."""
    r, rec = _run(tmp_path, "pi")
    assert not r["infra"] and not r["infra_error"], r["infra_error"]
    assert r["outcome"] == "nofile" and r["tool_format_errors"] == 1
    kept = list(read_events(rec / "events.jsonl"))
    assert any(ev["type"] == "pi_output" and '"toolCall"' in ev["text"] for ev in kept)
    assert not any(ev["type"] == "pi_output" and ev["text"].startswith('{"type":"message_update"') for ev in kept)


def test_a_pi_event_too_deep_to_read_is_kept_as_text(tmp_path):
    from sandbox.agents.pi import stats_from_events

    deep_event = json.dumps({"type": "message_end", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "name": "bash", "arguments": {"command": "x"}}]}})
    deep_event = deep_event.replace('"x"', "[" * N + "]" * N)
    delta = json.dumps({"type": "message_update", "partial": {"arguments": {"command": "x"}}}, separators=(",", ":"))
    delta = delta.replace('"x"', "[" * N + "]" * N)
    plain = json.dumps({"type": "message_end", "message": {"role": "assistant", "stopReason": "stop",
                                                           "content": [{"type": "text", "text": "Done."}]}})
    events = EventLog(tmp_path / "events.jsonl")
    stats = stats_from_events([delta, deep_event, plain], events)
    assert stats.turns == 1 and stats.final_message == "Done."
    kept = list(read_events(tmp_path / "events.jsonl"))
    assert [ev["type"] for ev in kept] == ["pi_output", "pi"]
    assert kept[0]["text"] == deep_event[:2000]
    assert parse_event(deep_event) is None and parse_event(plain)["type"] == "message_end"


def test_read_events_skips_a_line_nested_too_deep(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "a"}\n' + '{"x": ' + "[" * N + "]" * N + "}\n" + '{"type": "b"}\n')
    assert [ev["type"] for ev in read_events(path)] == ["a", "b"]
