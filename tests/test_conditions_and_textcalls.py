"""Conditions as the seed defines them, and tool calls written as text by small models."""

import pytest

from sandbox.agents.textcalls import parse_text_calls
from sandbox.agents.tools import check_call
from sandbox.engine.conditions import select_conditions


def test_default_conditions_and_overrides(tmp_path):
    conds = select_conditions()
    assert [(c.name, c.max_tokens, c.thinking) for c in conds] == [
        ("base", 2048, "off"), ("think", 4096, "medium"), ("base8k", 8192, "off")]
    assert conds[1].thinking_budget == 1024
    over = select_conditions("base,think", thinking="off", max_tokens=512)
    assert [(c.max_tokens, c.thinking) for c in over] == [(512, "off"), (512, "off")]
    ext = tmp_path / "ext.ts"
    ext.write_text("export default () => {}\n")
    with_ext = select_conditions(extension=str(ext))
    assert [c.name for c in with_ext] == ["base", "think", "base8k", "ext", "ext_think"]
    assert with_ext[3].extension == str(ext)


def test_bad_conditions_are_refused_clearly():
    with pytest.raises(ValueError, match="needs a pi extension: give --extension PATH"):
        select_conditions("base,ext")
    with pytest.raises(ValueError, match="unknown condition 'fast'"):
        select_conditions("fast")
    with pytest.raises(ValueError, match="no such file"):
        select_conditions("ext", extension="/nonexistent/ext.ts")


def test_fenced_and_tagged_calls_are_parsed():
    fenced = 'I will write it.\n```json\n{"name": "write", "arguments": {"path": "a.py", "content": "x = 1"}}\n```'
    [call] = parse_text_calls(fenced)
    assert (call.name, call.arguments, call.error) == ("write", {"path": "a.py", "content": "x = 1"}, None)
    tagged = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>'
    assert [(c.name, c.arguments) for c in parse_text_calls(tagged)] == [("bash", {"command": "ls"})]
    string_args = '```json\n{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}\n```'
    assert parse_text_calls(string_args)[0].arguments == {"command": "pwd"}


def test_broken_call_attempts_are_format_errors_and_plain_code_is_not_a_call():
    broken = '```json\n{"name": "write", "arguments": {"path": "a.py", "content": "unterminated}\n```'
    [call] = parse_text_calls(broken)
    assert call.error and "not valid JSON" in call.error
    assert parse_text_calls("```python\nprint('hello')\n```") == []
    assert parse_text_calls('```json\n{"port": 8080}\n```') == []
    assert parse_text_calls("All done.") == []


def test_check_call_names_the_problem():
    assert check_call("write", {"path": "a", "content": "b"}) is None
    assert "unknown tool 'run_shell'" in check_call("run_shell", {"cmd": "ls"})
    assert "needs the argument 'content'" in check_call("write", {"path": "a"})
    assert "must be a string" in check_call("bash", {"command": 5})
    assert "has no argument 'cwd'" in check_call("bash", {"command": "ls", "cwd": "/"})
    assert (check_call("edit", {"path": "a", "edits": [{"oldText": "x"}]})
            == "each edit needs oldText and newText strings")
