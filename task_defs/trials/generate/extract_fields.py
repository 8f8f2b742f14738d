"""How an extract trial asks for JSON: the fields of the answer (their described type, schema, right value and
rule) and `json_draft`, which phrases the request and builds its json_schema oracle."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from task_defs.trials.generate.build import Draft
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import eq, num

STR, INT, NUM, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}
DATE = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
TIME = {"type": "string", "pattern": "^[0-9]{2}:[0-9]{2}$"}
DESC = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
        "date": "string (YYYY-MM-DD)", "time": "string (HH:MM, 24-hour)"}
SCHEMA = {"string": STR, "integer": INT, "number": NUM, "boolean": BOOL, "date": DATE, "time": TIME}


@dataclass
class F:
    """One field of a JSON answer: how the request names its type, its schema, the right value and its rule."""
    key: str
    kind: str  # string, integer, number, boolean, date, time, or "raw" (desc and schema given)
    ref: Any
    rule: dict | None = None  # None: the kind's default rule
    desc: str | None = None
    schema: dict | None = None
    sub: dict[str, dict] = field(default_factory=dict)  # checks below the field: relative path -> rule

    def __post_init__(self):
        if self.kind != "raw":
            self.desc = self.desc or DESC[self.kind]
            self.schema = self.schema or SCHEMA[self.kind]
            if self.rule is None:
                self.rule = (eq(self.ref, fold=True) if self.kind == "string" else
                             num(self.ref, 0.005) if self.kind == "number" else eq(self.ref))


def enum_f(key: str, options: tuple[str, ...], ref: str) -> F:
    return F(key, "raw", ref, eq(ref), "one of " + ", ".join(f'"{o}"' for o in options),
             {"type": "string", "enum": list(options)})


def str_array(items: list[str]) -> dict:
    return {"type": "array", "items": STR, "minItems": len(items), "maxItems": len(items)}


ASK_BEFORE = (
    ("Extract the details from this {what}. Reply with JSON only, using exactly these fields and no others: "
     "{shape}.", True),
    ("Turn this {what} into JSON with exactly these fields: {shape}. No other keys and no prose.", True),
    ("Read the {what} below and answer with only a JSON object that has exactly these fields: {shape}.", True),
    ("Read the {what} below and answer with a JSON object shaped like {shape}. No other text.", False),
    ("From this {what}, fill in {shape} and reply with nothing but the JSON.", False),
    ("I need the {what} as data. Answer with only a JSON object: {shape}.", False),
)
ASK_AFTER = (
    ("Give me the {what} above as JSON with exactly these fields: {shape}. Reply with the JSON only.", True),
    ("From the {what} above, return just this JSON object: {shape}.", False),
    ("Now answer with only a JSON object like {shape}, every value taken from the {what} above.", False),
)


def json_draft(rng: Rng, what: str, text: str, fields: list[F], note: str = "") -> Draft:
    shape = "{" + ", ".join(f'"{f.key}": {f.desc}' for f in fields) + "}" + note
    before = rng.chance(0.7)
    ask, strict = rng.pick(ASK_BEFORE if before else ASK_AFTER)
    ask = ask.format(what=what, shape=shape)
    schema: dict = {"type": "object", "properties": {f.key: f.schema for f in fields},
                    "required": [f.key for f in fields]}
    if strict:
        schema["additionalProperties"] = False
    checks: dict[str, dict] = {}
    for f in fields:
        if f.rule is not None:
            checks[f.key] = f.rule
        checks.update({f"{f.key}.{p}": r for p, r in f.sub.items()})
    prompt = f"{ask}\n\n{text}" if before else f"{text}\n\n{ask}"
    oracle = {"kind": "json_schema", "schema": schema, "checks": checks, "reference": {f.key: f.ref for f in fields}}
    return Draft(prompt, oracle)
