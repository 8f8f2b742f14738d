"""Bounded parsing of text a model or an agent wrote (rule 4 of the judging boundary).

The standard parsers recurse: a few thousand nested brackets raise RecursionError in json and yaml, and a value
that deep breaks every recursive walk after them (comparison, canonical forms, printing). So the text's size is
capped, its nesting is measured before it is parsed (for JSON, without recursion), and the value is measured again
after. Whatever is refused raises `Refused`, a ValueError: the caller scores it as the model's malformed answer.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64  # deeper than any answer, call or item file we grade; far below the interpreter's recursion limit
MAX_BYTES = 4 << 20


class Refused(ValueError):
    """Agent or model text the judge will not parse: too big, too deep, or not the format. The model's failure."""


def _check_size(text: str | bytes, max_bytes: int) -> None:
    if len(text) > max_bytes:
        raise Refused(f"{len(text)} characters, more than the {max_bytes} a graded text may hold")


def json_depth(text: str | bytes) -> int:
    """The deepest bracket nesting of JSON text, counted outside strings, without recursion."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def value_depth(value: Any) -> int:
    """How deep a parsed value nests (lists, tuples and dicts), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


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
    if value_depth(value) > max_depth:
        raise Refused(f"nested more than {max_depth} levels deep")
    return value
