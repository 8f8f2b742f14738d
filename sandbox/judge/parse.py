"""Bounded parsing of text a model or an agent wrote (rule 4 of the judging boundary).

The standard parsers recurse: a few thousand nested brackets raise RecursionError in json and yaml, and a value
that deep breaks every recursive walk after them (comparison, canonical forms, printing). So the text's size is
capped, its nesting is measured before it is parsed (for JSON, without recursion), and the value is measured again
after. Whatever is refused raises `Refused`, a ValueError: the caller scores it as the model's malformed answer.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64  # deeper than any answer, call or item file we grade; far below the interpreter's recursion limit
MAX_BYTES = 4 << 20
MAX_VALUES = 1_000_000  # values of a YAML document counted through its aliases; far above any file we grade
CYCLE = sys.maxsize  # the depth of a value that contains itself


class Refused(ValueError):
    """Agent or model text the judge will not parse: too big, too deep, or not the format. The model's failure."""


def _check_size(text: str | bytes, max_bytes: int) -> None:
    if len(text) > max_bytes:
        raise Refused(f"{len(text)} characters, more than the {max_bytes} a graded text may hold")


# A whole JSON string, escapes included, or one left open, which runs to the end of the text (so every match attempt
# succeeds: the scan stays linear). Removing them leaves the brackets that nest, found at the regular-expression
# engine's speed rather than by a Python loop per character (agent event streams run to megabytes).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str | bytes) -> int:
    """The deepest bracket nesting of JSON text, counted outside strings, without recursion."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    steps = (1 if b in "[{" else -1 for b in _BRACKET.findall(_STRING.sub("", text)))
    return max(accumulate(steps, initial=0))


def _children(node: Any):
    if isinstance(node, dict):
        return node.values()
    if isinstance(node, (list, tuple)):
        return node
    return None


def _shape(value: Any) -> tuple[int, int]:
    """(depth, values) of `value` read as a tree, without recursion. A container that several places share (a YAML
    alias) is measured once and its measure reused, so a document of anchors that refer to anchors costs what its
    text costs, while its expanded count (what any later walk would visit) is still told. A value that contains
    itself (`&a [*a]`) is endless: (CYCLE, CYCLE)."""
    measured: dict[int, tuple[int, int]] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, finished = stack.pop()
        children = _children(node)
        if children is None:
            continue
        key = id(node)
        if finished:
            depth, count = 1, 1
            for child in children:
                d, n = measured.get(id(child), (0, 1)) if _children(child) is not None else (0, 1)
                depth, count = max(depth, d + 1), count + n
            measured[key] = (depth, count)
            on_path.discard(key)
        elif key in on_path:
            return CYCLE, CYCLE
        elif key not in measured:
            on_path.add(key)
            stack.append((node, True))  # below its children: popped once all of them are measured
            stack.extend((child, False) for child in children)
    return measured.get(id(value), (0, 1))


def value_depth(value: Any) -> int:
    """How deep a parsed value nests (lists, tuples and dicts), without recursion; CYCLE for one that contains
    itself."""
    return _shape(value)[0]


def bounded_json(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """`json.loads(text)`, or Refused when the text is too big, nests past `max_depth`, or is not JSON."""
    _check_size(text, max_bytes)
    depth = json_depth(text)
    if depth > max_depth:
        raise Refused(f"nested {depth} levels deep, more than the {max_depth} a graded value may be")
    try:
        return json.loads(text)
    except RecursionError:  # the pre-scan counts brackets; a parser is never trusted to bound itself
        raise Refused(f"nested past the parser's limit (over {max_depth} levels)") from None
    except (ValueError, TypeError) as exc:
        raise Refused(f"not JSON: {exc}") from None


def bounded_yaml(text: str, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """`yaml.safe_load(text)`, or Refused when the text is too big, nests past `max_depth`, or is not YAML."""
    import yaml

    _check_size(text, max_bytes)
    # flow collections ([ and {) are what nests cheaply in YAML; block nesting costs a line of indent per level
    if json_depth(text) > max_depth * 4:
        raise Refused(f"nested more than {max_depth} levels deep")
    try:
        value = yaml.safe_load(text)
    except RecursionError:
        raise Refused(f"nested past the parser's limit (over {max_depth} levels)") from None
    except yaml.YAMLError as exc:
        raise Refused(f"not YAML: {str(exc)[:300]}") from None
    depth, values = _shape(value)
    if depth == CYCLE:
        raise Refused("an alias refers to a node that contains it: the value is endless")
    if depth > max_depth:
        raise Refused(f"nested more than {max_depth} levels deep")
    if values > MAX_VALUES:  # anchors that repeat anchors: every later walk would visit each repeat
        raise Refused(f"its aliases expand it to {values} values, more than the {MAX_VALUES} a document may hold")
    return value
