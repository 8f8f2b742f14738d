"""The builtin agent's constrained tool format: no tools field at all; every reply is one JSON object that the
server's grammar (llama.cpp turns a JSON Schema response_format into one) forces into a valid action: a call of
one of our tools with arguments of that tool's schema, or done with a message.

For a small model that writes its calls as fenced JSON instead of native calls, this measures what it does when
the server cannot let it get the format wrong: a harness choice, recorded as tool_format "constrained".
"""

from __future__ import annotations

import json

from sandbox.agents.tools import TOOL_SCHEMAS
from sandbox.judge.parse import Refused, bounded_json

DONE = "done"
SCHEMA_NAME = "kbench_action"


def _action(name: str, params: dict) -> dict:
    return {"type": "object", "properties": {"tool": {"type": "string", "enum": [name]}, "arguments": params},
            "required": ["tool", "arguments"], "additionalProperties": False}


RESPONSE_FORMAT = {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": {"anyOf": [
    *(_action(t["function"]["name"], t["function"]["parameters"]) for t in TOOL_SCHEMAS),
    {"type": "object", "properties": {"tool": {"type": "string", "enum": [DONE]}, "message": {"type": "string"}},
     "required": ["tool", "message"], "additionalProperties": False}]}}}

_NAMES = ", ".join(t["function"]["name"] for t in TOOL_SCHEMAS)
SYSTEM = ("\n\nEvery reply of yours is one JSON object and nothing else. To use a tool: "
          '{"tool": NAME, "arguments": {...}} with NAME one of ' + _NAMES + " and the arguments that tool takes. "
          'When the task is done: {"tool": "done", "message": "a short summary"}. The result of each tool call '
          "comes back in the next message.\n\nThe tools:\n"
          + "\n".join(f"- {t['function']['name']}: {t['function']['description']} Arguments: "
                      f"{json.dumps(t['function']['parameters']['properties'])}; required: "
                      f"{', '.join(t['function']['parameters']['required'])}" for t in TOOL_SCHEMAS))


def parse_action(content: str) -> tuple[str, str | None, dict | None, str | None]:
    """("call", name, arguments, None), ("done", None, None, message) or ("error", None, None, why)."""
    try:  # bounded: a grammar keeps the shape, not the depth, and the reply is the model's text
        doc = bounded_json(content)
    except Refused as exc:
        return "error", None, None, f"the reply is not one JSON object: {exc}"
    if not isinstance(doc, dict) or not isinstance(doc.get("tool"), str):
        return "error", None, None, 'the reply has no "tool" naming the action'
    if doc["tool"] == DONE:
        return "done", None, None, str(doc.get("message") or "")
    args = doc.get("arguments")
    if not isinstance(args, dict):
        return "error", doc["tool"], None, '"arguments" is not a JSON object'
    return "call", doc["tool"], args, None
