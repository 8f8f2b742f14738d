"""The answer channel of a trial whose answer is words (a label, a JSON value): how it is asked for, and how a
server that cannot do structured output is met.

Modes, strongest first: json_schema (the server constrains the reply to a JSON Schema), json_object (any JSON
object), text (no constraint). `auto` starts at json_schema and steps down only when the server refuses the format
outright (HTTP 400/422 naming it); a wrong answer never changes the mode. A pinned mode never steps down, so two
runs pinned alike are asked alike. Each mode asks in its own words, so each has its own elicitation fingerprint.
Trials answered by tool calls or plain words (calls, no_call, shell) are asked the same way in every mode.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading

from sandbox.engine.chat import ChatReply
from sandbox.judge.parse import Refused, bounded_json
from task_defs.trials.models import JsonAnswer, Label, Trial

MODES = ("json_schema", "json_object", "text")
POLICIES = ("auto",) + MODES
LABEL_KEY = "label"
# a refusal of the format itself: the request was fine but for response_format (llama.cpp names the schema or the
# grammar it failed to build; OpenAI-style servers name the field)
_REJECTION = re.compile(r"response.?format|json.?schema|json.?object|grammar|schema", re.IGNORECASE)
_HINTS = {
    "label": {"json_schema": 'Reply with a JSON object whose "label" is your answer.',
              "json_object": 'Reply with a JSON object {"label": ...} whose label is your answer, one of the labels '
                             "named.",
              "text": None},
    "json": {"json_schema": None, "json_object": "Reply with the JSON object only.", "text": None},
}


class Negotiation:
    """The answer format a run asks in: one for every attempt of the run, stepped down on explicit refusals."""

    def __init__(self, policy: str = "auto"):
        if policy not in POLICIES:
            raise ValueError(f"--response-format: {policy!r} is not one of {', '.join(POLICIES)}")
        self.policy = policy
        self.mode = MODES[0] if policy == "auto" else policy
        self._lock = threading.Lock()

    def step_down(self, refused: str) -> bool:
        """After the server refused `refused`: True when there is a weaker mode to ask in now (another attempt may
        have stepped down already); a pinned mode never steps down."""
        if self.policy != "auto":
            return False
        with self._lock:
            if self.mode == refused and refused != MODES[-1]:
                self.mode = MODES[MODES.index(refused) + 1]
            return self.mode != refused


def format_of(trial: Trial, mode: str) -> tuple[dict | None, str | None]:
    """(response_format, a system hint) for the trial's answer in `mode`; (None, None) where nothing changes."""
    o = trial.oracle
    if mode == "text" or not isinstance(o, (Label, JsonAnswer)):
        return None, None
    if isinstance(o, Label):
        schema = {"type": "object", "properties": {LABEL_KEY: {"type": "string", "enum": list(o.labels)}},
                  "required": [LABEL_KEY], "additionalProperties": False}
        hint = _HINTS["label"][mode]
    else:
        schema, hint = o.json_schema, _HINTS["json"][mode]
    if mode == "json_object":
        return {"type": "json_object"}, hint
    return {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": schema}}, hint


def answer_text(trial: Trial, mode: str, text: str) -> str:
    """The label out of a JSON answer asked for in a JSON mode; anything else as it came (a reply that is not the
    asked object is graded as written, and fails as written)."""
    if mode == "text" or not isinstance(trial.oracle, Label):
        return text
    try:
        value = bounded_json(text)
    except Refused:  # too deep or not JSON: graded as written, and fails as written
        return text
    if isinstance(value, dict) and set(value) == {LABEL_KEY} and isinstance(value[LABEL_KEY], str):
        return value[LABEL_KEY]
    return text


def is_format_rejection(reply: ChatReply) -> bool:
    return reply.finish == "refused" and bool(re.match(r"HTTP 4(00|22)\b", reply.error or "")) \
        and bool(_REJECTION.search(reply.error or ""))


def elicitation_fingerprint(mode: str, system: str, rounds: int, tool_result: str) -> str:
    """Changes whenever the way of asking changes: the mode, the words said around every trial, the exchange."""
    doc = {"mode": mode, "system": system, "hints": {k: v[mode] for k, v in _HINTS.items()}, "rounds": rounds,
           "tool_result": tool_result}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]
