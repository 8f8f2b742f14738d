"""Tool calls written as text: fenced JSON blocks or <tool_call> tags, as small local models write them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sandbox.judge.parse import Refused, bounded_json

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCED = re.compile(r"```(?:json|tool_call|tool)?\s*\n?(.*?)```", re.S)


@dataclass
class TextCall:
    name: str | None
    arguments: object
    raw: str
    error: str | None = None  # set when the block tries to be a call but is not a valid one


def _looks_like_call(text: str) -> bool:
    return bool(re.search(r'"(name|function|tool)"\s*:', text))


def _one(raw: str) -> TextCall | None:
    try:  # bounded: the model wrote it, and a few thousand brackets would break the json module
        data = bounded_json(raw)
    except Refused as exc:
        return TextCall(None, None, raw, f"not valid JSON: {exc}") if _looks_like_call(raw) else None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("function"), dict):  # {"type": "function", "function": {...}}
        data = data["function"]
    name = data.get("name") or data.get("tool")
    if not isinstance(name, str):
        return TextCall(None, None, raw, "no tool name") if _looks_like_call(raw) else None
    args = data.get("arguments", data.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = bounded_json(args)
        except Refused as exc:
            return TextCall(name, None, raw, f"arguments are not valid JSON: {exc}")
    return TextCall(name, args, raw)


def parse_text_calls(content: str) -> list[TextCall]:
    """Every tool call attempt in a reply's text; broken attempts carry an error."""
    if not content:
        return []
    blocks = _TAGGED.findall(content) or _FENCED.findall(content)
    calls = [c for c in (_one(b.strip()) for b in blocks) if c is not None]
    if not calls and content.strip().startswith("{") and _looks_like_call(content):
        call = _one(content.strip())
        if call:
            calls.append(call)
    return calls
