"""The judging boundary's bounded parsers (sandbox/judge/parse.py): ordinary documents parse as the standard parsers
read them; deep ones, alias bombs and values that contain themselves are refused as the model's malformed text."""

import json

import pytest
import yaml

from sandbox.judge.parse import MAX_DEPTH, Refused, bounded_json, bounded_yaml, json_depth, value_depth


def laughs(levels: int, width: int = 9) -> str:
    """The "billion laughs" document: each anchor is a list of `width` aliases of the one before."""
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text", ['{"a": [1, 2, {"b": null}], "c": "x"}', "[]", "3", '"text"',
                                  '[[[["four deep"]]]]'])
def test_ordinary_json_parses_as_json_loads_reads_it(text):
    assert bounded_json(text) == json.loads(text)
    assert bounded_json(text.encode()) == json.loads(text)


@pytest.mark.parametrize("text", ["a: 1\nb: [x, y]\nc: {d: e}\n", "- one\n- two: [3, 4]\n", "plain", "",
                                  "base: &base {x: 1}\nderived:\n  <<: *base\n  y: 2\nagain: *base\n"])
def test_ordinary_yaml_parses_as_safe_load_reads_it(text):
    assert bounded_yaml(text) == yaml.safe_load(text)


def test_brackets_inside_strings_do_not_count():
    text = json.dumps({"code": "[" * 5000 + "{" * 5000, "escaped": 'a \\" [[[ "quote" ]]]'})
    assert json_depth(text) == 1
    assert bounded_json(text)["code"].startswith("[[[")
    assert bounded_yaml(f'code: "{"[" * 5000}"\n')["code"] == "[" * 5000


def test_a_string_left_open_hides_the_rest_of_the_text():
    assert json_depth('["open [[[[') == 1
    assert json_depth('[["escaped \\" [[[ still inside') == 2


@pytest.mark.parametrize("parse", [bounded_json, bounded_yaml])
def test_deep_nesting_is_refused_not_a_recursion_error(parse):
    for text in ("[" * 3000 + "]" * 3000, '{"a": ' * 3000 + "1" + "}" * 3000):
        with pytest.raises(Refused, match="nested"):
            parse(text)


def test_nesting_at_the_limit_parses_and_one_past_it_is_refused():
    at = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert value_depth(bounded_json(at)) == MAX_DEPTH
    assert value_depth(bounded_yaml(at)) == MAX_DEPTH
    with pytest.raises(Refused):
        bounded_json("[" + at + "]")
    with pytest.raises(Refused):
        bounded_yaml("[" + at + "]")


def test_block_yaml_nested_past_the_limit_is_refused():
    text = "".join("  " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 5)) + "  " * (MAX_DEPTH + 5) + "leaf\n"
    with pytest.raises(Refused):
        bounded_yaml(text)


def test_billion_laughs_is_refused():
    """Nine levels of nine aliases: a short text whose value, walked as a tree, has hundreds of millions of items.
    The measure visits each shared list once, so the refusal costs what the text costs."""
    with pytest.raises(Refused, match="aliases expand"):
        bounded_yaml(laughs(9))
    assert len(bounded_yaml(laughs(3))["a2"]) == 9  # a few shared anchors are an ordinary document


def test_a_value_that_contains_itself_is_refused():
    with pytest.raises(Refused, match="endless"):
        bounded_yaml("&a [*a]")
    with pytest.raises(Refused, match="endless"):
        bounded_yaml("top: &t {child: {back: *t}}")


def test_a_shared_node_counts_at_its_deepest_place():
    """A shared list met both near the top and far below is as deep as its deepest place, whichever the walk meets
    first, so anchors cannot stack shallow-looking pieces into a value past the limit."""
    piece = "[" * 40 + "1" + "]" * 40
    deep_anchor = f"- {'[' * 40}&A {piece}{']' * 40}\n- *A\n"
    deep_alias = f"- &A {piece}\n- {'[' * 40}*A{']' * 40}\n"
    for text in (deep_anchor, deep_alias):
        assert value_depth(yaml.safe_load(text)) == 1 + 40 + 40
        with pytest.raises(Refused, match="nested"):
            bounded_yaml(text)
