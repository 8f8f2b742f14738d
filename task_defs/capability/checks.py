"""Grading a reply in-process, over its text: fields, structured and constraints graders (models.py). The reply is
data here, never run; the kbtest grader, which runs it, lives with the sandbox (sandbox/chatwork/capability.py).

Each check gives (name, weight, passed, note); the score is the passed weight over the total."""

from __future__ import annotations

import configparser
import json
import math
import re
import tomllib
from dataclasses import dataclass

import jsonschema
import yaml

from sandbox.judge.parse import MAX_BYTES, MAX_DEPTH, Refused, bounded_json, bounded_yaml, json_depth, value_depth
from task_defs.capability.models import (
    Constraint,
    ConstraintsGrader,
    FieldCheck,
    FieldsGrader,
    StructuredGrader,
    ValueCheck,
)

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.S)
FIELD = re.compile(r"^\s*[*_`]*([A-Za-z][A-Za-z0-9 _-]*?)[*_`]*\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class CheckResult:
    name: str
    weight: float
    passed: bool
    note: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "weight": self.weight, "passed": self.passed, "note": self.note}


def score_of(results: list[CheckResult]) -> float:
    total = sum(r.weight for r in results)
    return round(sum(r.weight for r in results if r.passed) / total, 6) if total else 0.0


def fenced(reply: str, language: str = "any") -> str:
    """The last fenced block in `language` (any language for "any"), else the reply itself, stripped."""
    blocks = FENCE.findall(reply)
    wanted = {"python": ("python", "py"), "bash": ("bash", "sh", "shell"), "sql": ("sql",),
              "yaml": ("yaml", "yml"), "json": ("json",), "ini": ("ini", "cfg", "conf", "systemd")}.get(language)
    chosen = [body for lang, body in blocks if wanted is None or lang.lower() in wanted or not lang]
    return (chosen[-1] if chosen else reply).strip()


def _norm(text) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().strip(".").casefold()


def _number(text) -> float | None:
    # a minus sign may come typeset (U+2212) or as a dash: either makes the number negative
    m = re.search(r"-?\d[\d,_]*(?:\.\d+)?(?:[eE]-?\d+)?", str(text).replace("\u2212", "-").replace("\u2013", "-"))
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", "").replace("_", ""))
    except ValueError:
        return None


def reply_fields(reply: str) -> dict[str, str]:
    """`KEY: value` lines, keys case-folded with spaces as underscores; the last line of a key wins."""
    out = {}
    for line in reply.splitlines():
        m = FIELD.match(line)
        if m:
            out[m.group(1).strip().casefold().replace(" ", "_").replace("-", "_")] = m.group(2).strip().strip("`*")
    return out


def _field_check(c: FieldCheck, fields: dict[str, str]) -> CheckResult:
    key = c.field.casefold().replace(" ", "_").replace("-", "_")
    if key not in fields:
        return CheckResult(c.name, c.weight, False, f"no `{c.field}:` line")
    got = fields[key]
    if c.op == "equals":
        ok = _norm(got) == _norm(c.value)
    elif c.op == "number":
        n = _number(got)
        ok = n is not None and math.isclose(n, float(c.value), rel_tol=0, abs_tol=c.tolerance)
    elif c.op == "one_of":
        ok = _norm(got) in {_norm(v) for v in c.value}
    else:  # a set: its items in any order, each with any brackets around it ("[A], [C]" is A and C)
        ok = sorted(_norm(x.strip(" []()")) for x in got.split(",") if x.strip(" []()")) == \
            sorted(_norm(x) for x in c.value)
    return CheckResult(c.name, c.weight, ok, "" if ok else f"{c.field}: {got[:80]!r}")


def grade_fields(g: FieldsGrader, reply: str) -> list[CheckResult]:
    fields = reply_fields(reply)
    return [_field_check(c, fields) for c in g.checks]


def _bounded_toml(text: str):
    """TOML read as parse.bounded_yaml reads YAML: inline arrays and tables nest by brackets, and tomllib recurses."""
    if len(text) > MAX_BYTES or json_depth(text) > MAX_DEPTH * 4:
        raise Refused(f"longer than {MAX_BYTES} characters or nested more than {MAX_DEPTH} levels deep")
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise Refused(f"nested past the parser's limit (over {MAX_DEPTH} levels)") from None
    if value_depth(doc) > MAX_DEPTH:
        raise Refused(f"nested more than {MAX_DEPTH} levels deep")
    return doc


def parse(fmt: str, text: str):
    """The document in `fmt`; raises ValueError saying why it is not one. The model wrote it: JSON, YAML and TOML
    are read with bounded depth and size (sandbox/judge/parse.py), so a reply nested thousands deep fails here, as
    the model's malformed answer."""
    try:
        if fmt == "json":
            return bounded_json(text)
        if fmt == "yaml":
            return bounded_yaml(text)
        if fmt == "toml":
            return _bounded_toml(text)
        cp = configparser.ConfigParser(interpolation=None, strict=True)
        cp.optionxform = str  # keys keep their case: systemd's ExecStart is not execstart
        cp.read_string(text)
        return {s: dict(cp[s]) for s in cp.sections()}
    except (ValueError, yaml.YAMLError, tomllib.TOMLDecodeError, configparser.Error) as exc:
        raise ValueError(f"not {fmt}: {str(exc).splitlines()[0][:120]}") from None


_MISSING = object()


def pointer(doc, path: str):
    """The value at a JSON Pointer, or _MISSING."""
    if path == "":
        return doc
    at = doc
    for raw in path[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(at, dict) and key in at:
            at = at[key]
        elif isinstance(at, list) and key.isdigit() and int(key) < len(at):
            at = at[int(key)]
        else:
            return _MISSING
    return at


def _value_check(c: ValueCheck, doc) -> CheckResult:
    got = pointer(doc, c.path)
    if c.op == "absent":
        ok = got is _MISSING
        return CheckResult(c.name, c.weight, ok, "" if ok else f"{c.path} is present")
    if got is _MISSING:
        return CheckResult(c.name, c.weight, False, f"nothing at {c.path or '(the document)'}")
    if c.op == "equals":
        ok = got == c.value or (isinstance(got, str) and isinstance(c.value, str) and _norm(got) == _norm(c.value))
    elif c.op == "number":
        ok = isinstance(got, (int, float)) and not isinstance(got, bool) and \
            math.isclose(float(got), float(c.value), rel_tol=0, abs_tol=c.tolerance)
    elif c.op == "one_of":
        ok = got in c.value
    elif c.op == "length":
        ok = isinstance(got, (list, dict, str)) and len(got) == c.value
    else:
        ok = isinstance(got, dict) and all(k in got for k in c.value)
    return CheckResult(c.name, c.weight, ok, "" if ok else f"{c.path}: {json.dumps(got, default=str)[:80]}")


def grade_structured(g: StructuredGrader, reply: str, raw: bool = False) -> list[CheckResult]:
    """`raw`: the reply is the document itself (a tool_use reply is our own JSON of the calls, whose words may hold
    a fenced block of the model's)."""
    text = reply.strip() if raw else fenced(reply, g.format)
    try:
        doc = parse(g.format, text)
    except ValueError as exc:
        fails = [CheckResult(c.name, c.weight, False, str(exc)) for c in g.checks]
        return ([CheckResult("schema", 1.0, False, str(exc))] if g.schema_ else []) + fails
    out = []
    if g.schema_ is not None:
        errors = sorted(jsonschema.Draft202012Validator(g.schema_).iter_errors(doc), key=lambda e: list(e.path))
        out.append(CheckResult("schema", 1.0, not errors, errors[0].message[:120] if errors else ""))
    return out + [_value_check(c, doc) for c in g.checks]


def _between(n: int, c: Constraint) -> bool:
    return (c.min is None or n >= c.min) and (c.max is None or n <= c.max)


def _constraint(c: Constraint, reply: str) -> CheckResult:
    text = reply.strip()
    low = text.casefold()
    if c.rule == "words_between":
        n = len(text.split())
        ok, note = _between(n, c), f"{n} words"
    elif c.rule == "lines_between":
        n = len([ln for ln in text.splitlines() if ln.strip()])
        ok, note = _between(n, c), f"{n} lines"
    elif c.rule == "paragraphs":
        n = len([p for p in re.split(r"\n\s*\n", text) if p.strip()])
        ok, note = _between(n, c), f"{n} paragraphs"
    elif c.rule == "bullets":
        n = len([ln for ln in text.splitlines() if re.match(r"^\s*[-*] \S", ln)])
        ok, note = _between(n, c), f"{n} bullet lines"
    elif c.rule == "contains":
        ok, note = c.text.casefold() in low, f"no {c.text!r}"
    elif c.rule == "not_contains":
        ok, note = c.text.casefold() not in low, f"holds {c.text!r}"
    elif c.rule == "regex":
        ok, note = re.search(c.text, text, re.M) is not None, f"nothing matches {c.text!r}"
    elif c.rule == "not_regex":
        ok, note = re.search(c.text, text, re.M) is None, f"something matches {c.text!r}"
    elif c.rule == "lowercase":
        ok, note = bool(text) and text == text.lower(), "has capital letters"
    elif c.rule == "no_char":
        bad = sorted({ch for ch in text if ch in c.text})
        ok, note = bool(text) and not bad, f"holds {''.join(bad)!r}" if bad else "empty"
    elif c.rule == "starts_with":
        ok, note = low.startswith(c.text.casefold()), f"starts {text[:30]!r}"
    elif c.text.strip(".!? "):  # words: a closing full stop or mark on either side does not matter
        ok, note = low.rstrip(".!? ").endswith(c.text.casefold().rstrip(".!? ")), f"ends {text[-30:]!r}"
    else:  # the ending asked for is itself the punctuation
        ok, note = low.endswith(c.text.strip()), f"ends {text[-30:]!r}"
    return CheckResult(c.name, c.weight, ok, "" if ok else note)


def grade_constraints(g: ConstraintsGrader, reply: str) -> list[CheckResult]:
    return [_constraint(c, reply) for c in g.checks]


def grade_text(grader, reply: str, raw: bool = False) -> list[CheckResult]:
    """The in-process graders; kbtest and judge are graded elsewhere."""
    if isinstance(grader, FieldsGrader):
        return grade_fields(grader, reply)
    if isinstance(grader, StructuredGrader):
        return grade_structured(grader, reply, raw)
    if isinstance(grader, ConstraintsGrader):
        return grade_constraints(grader, reply)
    raise TypeError(f"{type(grader).__name__} is not graded in-process")
