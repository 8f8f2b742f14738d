"""The oracles that read the reply's text: one label of a fixed set, or a JSON answer valid for a schema with values
checked at paths."""

from __future__ import annotations

from typing import Any

from sandbox.judge.parse import Refused, bounded_json
from task_defs.trials.answers import Answer, Verdict, value_ok
from task_defs.trials.models import ArgRule, JsonAnswer, Label


def label_verdict(o: Label, answer: Answer) -> Verdict:
    if answer.calls:
        return Verdict(False, 0.0, "wrong_channel", "a tool call where a label was asked")
    said = answer.text.strip().strip(".").strip().strip("`'\"").strip()
    if not said:
        return Verdict(False, 0.0, "empty", "an empty reply")
    match = [x for x in o.labels if x.casefold() == said.casefold()]
    if not match:
        return Verdict(False, 0.0, "no_label", f"{said[:80]!r} is not exactly one of the labels")
    if match[0] != o.answer:
        return Verdict(False, 0.0, "wrong_label", f"{match[0]!r}, expected {o.answer!r}")
    return Verdict(True, 1.0)


def json_verdict(o: JsonAnswer, answer: Answer) -> Verdict:
    if answer.calls:
        return Verdict(False, 0.0, "wrong_channel", "a tool call where a JSON answer was asked")
    text = _unfence(answer.text)
    if not text:
        return Verdict(False, 0.0, "empty", "an empty reply")
    try:
        value = bounded_json(text)
    except Refused as exc:  # too deep or too big counts as not the JSON asked for: the model's answer
        return Verdict(False, 0.0, "not_json", str(exc))
    problem = next(iter(validator(o.json_schema).iter_errors(value)), None)
    if problem is not None:
        where = "/".join(map(str, problem.path)) or "the answer"
        return Verdict(False, 0.0, "schema_invalid", f"{where}: {problem.message[:200]}")
    bad = [p for p, rule in o.checks.items() if not _path_ok(value, p, rule)]
    if bad:
        return Verdict(False, 0.0, "wrong_value", "wrong at " + ", ".join(bad))
    return Verdict(True, 1.0)


_VALIDATORS: dict[int, tuple[dict, object]] = {}  # id of a trial's schema -> (that schema, its validator)


def validator(schema: dict):
    """The schema's validator, made once: a strike grades the same few dozen schemas hundreds of times. Kept with
    the schema itself, so the id is never another's while it is cached."""
    seen = _VALIDATORS.get(id(schema))
    if seen is not None and seen[0] is schema:
        return seen[1]
    import jsonschema  # loaded on first use: most commands never grade a JSON answer

    if len(_VALIDATORS) > 4096:
        _VALIDATORS.clear()
    v = jsonschema.Draft202012Validator(schema)
    _VALIDATORS[id(schema)] = (schema, v)
    return v


def _unfence(text: str) -> str:
    """The answer without a Markdown code fence around it (a fence is formatting, not a format error)."""
    t = text.strip()
    if t.startswith("```") and t.endswith("```") and t.count("```") == 2:
        t = t[3:-3]
        t = t.split("\n", 1)[1] if "\n" in t and not t.lstrip().startswith(("{", "[")) else t
    return t.strip()


def _path_ok(value: Any, path: str, rule: ArgRule) -> bool:
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return rule.optional
    return value_ok(rule, value)
