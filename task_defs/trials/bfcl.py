"""The Berkeley Function Calling Leaderboard (BFCL): its data files read, and each item converted to a Trial.

BFCL ships its single-turn categories as JSON lines inside the bfcl_eval package: a question file per category
(data/BFCL_v4_<stem>.json: id, question = list of turns, function = the offered functions) and, except irrelevance,
a possible-answer file (data/possible_answer/BFCL_v4_<stem>.json: id, ground_truth = one {function: {param: [options]}}
per expected call, "" among the options meaning the parameter may be left out). Only the data files are read: the
package's checker and config modules create folders when imported.

Each item becomes a Trial that brings its own tools; its oracle reproduces BFCL's checker as far as ArgRule can:
strings compared with BFCL's normalisation (norm="bfcl"), a dict answer (param -> options per key) enumerated into
the dicts it accepts. One departure: a parameter whose schema has an enum two of whose members are one value under
that normalisation (genotypes AA, Aa, aa) is compared exactly, since there the normalisation would take a wrong
member for the right one (and let three calls for AA stand for AA, Aa and aa). canonical_answer() is BFCL's own
right answer for an item (the first option of every parameter, those marked omittable left out).
bfcl_agreement.py grades that answer with our oracle and names every item where the two cannot agree;
bfcl_families.py writes the trials as family folders, a prompt asked in two categories once.
"""

from __future__ import annotations

import importlib.resources
import itertools
import json
import re
from collections import Counter
from typing import Any

from pydantic import ValidationError

from task_defs.trials.grading import Answer, Call, value_ok
from task_defs.trials.models import ArgRule, CallRule, CallsExact, CallsSet, Message, NoCall, Trial

INSTALL_HINT = "pip install --no-deps bfcl-eval==2026.3.23"
CATEGORIES = ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance")
STEMS = {"simple": "simple_python", "multiple": "multiple", "parallel": "parallel",
         "parallel_multiple": "parallel_multiple", "irrelevance": "irrelevance"}
PREFIX = "BFCL_v4_"
# A dict answer accepts the product of its keys' options; past this many the rest is not enumerated (a known
# disagreement, never met in the shipped data, where the largest product is 2)
COMBO_CAP = 256
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": None, "integer": "integer",
          "array": "array", "boolean": "boolean", "string": "string", "number": "number", "object": "object"}
# JSON Schema keywords kept from BFCL's property schemas; its own "optional" flag repeats "required" and is dropped
_KEEP = ("description", "enum", "default", "format", "minimum", "maximum", "minItems", "maxItems")
_OMIT = object()  # a dict key left out


class BfclMissing(RuntimeError):
    pass


class _Skip(Exception):
    pass


# ------------------------------------------------------------------------------------------------ data

def canonical_category(name: str) -> str:
    """Our category name for ours or BFCL's (simple_python -> simple)."""
    for ours, stem in STEMS.items():
        if name in (ours, stem):
            return ours
    raise ValueError(f"unknown BFCL category {name!r}: one of {', '.join(CATEGORIES)}")


def data_files(category: str):
    """(question file, possible-answer file or None) inside the installed bfcl_eval package."""
    try:
        root = importlib.resources.files("bfcl_eval") / "data"
    except ModuleNotFoundError:
        raise BfclMissing(f"bfcl_eval is not installed; install it with: {INSTALL_HINT}") from None
    stem = STEMS[canonical_category(category)]
    question, answer = root / f"{PREFIX}{stem}.json", root / "possible_answer" / f"{PREFIX}{stem}.json"
    if not question.is_file():
        raise BfclMissing(f"{question} is missing: this importer reads bfcl-eval 2026.3.23 ({INSTALL_HINT})")
    return question, answer if answer.is_file() else None


def _jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_bfcl(category: str, limit: int | None = None) -> list[dict]:
    """The category's items in file order, each with its ground_truth (None where BFCL has no answer file)."""
    question, answer = data_files(category)
    items = _jsonl(question)[:limit]
    truth = {a["id"]: a["ground_truth"] for a in _jsonl(answer)} if answer else {}
    return [{**it, "ground_truth": truth.get(it["id"])} for it in items]


# ------------------------------------------------------------------------------------------- tools

def tool_name(name: str) -> str:
    """BFCL's own renaming for OpenAI-style models, whose tool names must match ^[a-zA-Z0-9_-]{1,64}$."""
    return name.replace(".", "_")


def trial_id(bfcl_id: str) -> str:
    return "bfcl_" + re.sub(r"[^a-z0-9_]", "_", bfcl_id)


def json_schema(schema: dict) -> dict:
    """A BFCL parameter schema as JSON Schema, recursively (dict -> object, float -> number, tuple -> array,
    any -> no type constraint)."""
    out: dict[str, Any] = {}
    if "type" in schema:
        if schema["type"] not in _TYPES:
            raise _Skip(f"unknown parameter type {schema['type']!r}")
        if _TYPES[schema["type"]]:
            out["type"] = _TYPES[schema["type"]]
    out.update({k: schema[k] for k in _KEEP if k in schema})
    if isinstance(schema.get("items"), dict):
        out["items"] = json_schema(schema["items"])
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: json_schema(v) for k, v in schema["properties"].items()}
    if isinstance(schema.get("required"), list):
        out["required"] = list(schema["required"])
    return out


def tool_spec(function: dict) -> dict:
    params = function.get("parameters") or {}
    props = params.get("properties") or {}
    required = [k for k in params.get("required") or [] if k in props]
    if len(required) != len(params.get("required") or []):
        raise _Skip("a function requires a parameter it does not define")
    spec = {"type": "object", "properties": {k: json_schema(v) for k, v in props.items()}}
    if required:
        spec["required"] = required
    description = (function.get("description") or "").strip() or f"The function {function['name']}."
    return {"description": description, "parameters": spec}


# ----------------------------------------------------------------------------------------- answers

def _is_rule_dict(v) -> bool:
    return isinstance(v, dict) and all(isinstance(x, list) for x in v.values())


def _dict_choices(rule: dict):
    """Every dict BFCL's dict check accepts for one dict answer, canonical first (its omittable keys left out)."""
    keys = list(rule)
    per_key = [([_OMIT] if "" in rule[k] else []) + [o for o in rule[k] if o != ""] for k in keys]
    for pick in itertools.product(*per_key):
        yield {k: v for k, v in zip(keys, pick) if v is not _OMIT}


def _expanded(option, schema: dict | None):
    """The literal values one BFCL option stands for: a dict answer for a dict parameter, a list of them for an
    array of dicts, are rules per key; anything else is itself."""
    kind = (schema or {}).get("type")
    item_kind = ((schema or {}).get("items") or {}).get("type")
    if kind == "dict" and _is_rule_dict(option):
        return _dict_choices(option)
    if kind in ("array", "tuple") and item_kind == "dict" and isinstance(option, list) and \
            all(_is_rule_dict(x) for x in option):
        return (list(p) for p in itertools.product(*[list(_dict_choices(x)) for x in option]))
    return iter([option])


def _canonical_value(option, schema: dict | None):
    return next(_expanded(option, schema), option)


def enum_collisions(schema: dict | None) -> list[list]:
    """The groups of enum members that BFCL's normalisation makes one value (AA, Aa, aa), in the schema's own enum,
    its items' and its properties', recursively; empty when every member stays distinct."""
    if not isinstance(schema, dict):
        return []
    groups: list[list] = []
    enum = schema.get("enum") if isinstance(schema.get("enum"), list) else []
    members = [m for m in enum if isinstance(m, str)]  # numbers compare alike either way
    for i, m in enumerate(members):
        if any(m in g for g in groups):
            continue
        same = [m] + [x for x in members[i + 1:] if x != m and value_ok(ArgRule(eq=m, norm="bfcl"), x)]
        if len(same) > 1:
            groups.append(same)
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    return groups + [g for sub in (schema.get("items"), *props.values()) for g in enum_collisions(sub)]


def arg_rule(options: list, schema: dict | None, required: bool) -> tuple[ArgRule, bool]:
    """(the rule, whether the accepted values had to be cut at COMBO_CAP). A required parameter is never optional:
    BFCL's checker demands it whatever its options say. Strings are compared as BFCL's checker does, except in a
    parameter whose enum has members that normalisation makes one (enum_collisions): there exactly, the whole
    argument."""
    values: list = []
    for option in (o for o in options if o != ""):
        values.extend(itertools.islice(_expanded(option, schema), max(0, COMBO_CAP + 1 - len(values))))
    cut = len(values) > COMBO_CAP
    values = values[:COMBO_CAP] or [o for o in options if o != ""] or [""]  # [""]: only the empty string, if given
    compare = {} if enum_collisions(schema) else {"norm": "bfcl"}
    return ArgRule(any_of=values, optional="" in options and not required, **compare), cut


def offered_functions(item: dict) -> dict[str, dict]:
    return {f["name"]: f for f in item.get("function") or []}


def _call_rule(name: str, args: dict, functions: dict[str, dict]) -> CallRule:
    params = (functions.get(name) or {}).get("parameters") or {}
    props, required = params.get("properties") or {}, set(params.get("required") or [])
    rules = {}
    for param, options in args.items():
        if not isinstance(options, list) or not options:
            raise _Skip("a possible answer is not a list of options")
        if param not in props and "" in options:
            continue  # an answer for a parameter the function lacks, omittable: BFCL fails it if given, as we do
        rules[param] = arg_rule(options, props.get(param), param in required)[0]
    return CallRule(name=tool_name(name), args=rules)


def _messages(item: dict) -> list[Message]:
    turns = item.get("question") or []
    if len(turns) != 1 or not isinstance(turns[0], list):
        raise _Skip("not a single-turn question")
    out = []
    for m in turns[0]:
        if m.get("role") not in ("user", "system"):
            raise _Skip(f"a {m.get('role')!r} message")
        if not isinstance(m.get("content"), str) or not m["content"].strip():
            raise _Skip("an empty message")
        out.append(Message(role=m["role"], content=m["content"]))
    if not out or out[-1].role != "user":
        raise _Skip("the question does not end with the user's message")
    return out


def convert_item(category: str, item: dict) -> Trial:
    category = canonical_category(category)
    messages = _messages(item)
    functions = offered_functions(item)
    names = [tool_name(n) for n in functions]
    if not names:
        raise _Skip("no functions offered")
    if len(set(names)) != len(names):
        raise _Skip("two functions share a name once '.' becomes '_'")
    if any(not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in names):
        raise _Skip("a function name OpenAI tools cannot carry")
    specs = {tool_name(n): tool_spec(f) for n, f in functions.items()}
    if category == "irrelevance":
        oracle = NoCall(kind="no_call")
    else:
        truth = item.get("ground_truth")
        if not truth:
            raise _Skip("no possible answer")
        if any(not isinstance(c, dict) or len(c) != 1 for c in truth):
            raise _Skip("a possible answer names not exactly one function")
        calls = [_call_rule(*next(iter(c.items())), functions) for c in truth]
        if category in ("simple", "multiple") and len(calls) != 1:
            raise _Skip(f"{len(calls)} expected calls in a one-call category")
        oracle = CallsSet(kind="calls_set", calls=calls) if len(calls) > 1 else \
            CallsExact(kind="calls_exact", calls=calls)
    try:
        return Trial(id=trial_id(item["id"]), tools=names, tool_specs=specs, messages=messages, oracle=oracle,
                     source="bfcl")
    except ValidationError as exc:
        raise _Skip(f"not a valid trial: {exc.errors()[0]['msg']}") from None


def convert_items(category: str, items: list[dict]) -> tuple[list[Trial], dict[str, int]]:
    trials, skipped = [], Counter()
    for item in items:
        try:
            trials.append(convert_item(category, item))
        except _Skip as why:
            skipped[str(why)] += 1
    return trials, dict(skipped)


def convert(category: str, limit: int | None = None) -> tuple[list[Trial], dict[str, int]]:
    return convert_items(category, load_bfcl(category, limit))


def canonical_answer(item: dict, give_required: bool = False) -> Answer:
    """BFCL's own right answer: every expected call with the first option of each parameter, the parameters whose
    options include "" left out (through dict answers too), unless `give_required` and the function requires them;
    a words-only reply where no call is expected."""
    if not item.get("ground_truth"):
        return Answer(text="None of the offered functions can do that.")
    functions, calls = offered_functions(item), []
    for c in item["ground_truth"]:
        name, args = next(iter(c.items()))
        params = (functions.get(name) or {}).get("parameters") or {}
        props, required = params.get("properties") or {}, set(params.get("required") or []) if give_required else ()
        calls.append(Call(tool_name(name), {k: _canonical_value(next(o for o in opts if o != ""), props.get(k))
                                            for k, opts in args.items()
                                            if "" not in opts or (k in required and any(o != "" for o in opts))}))
    return Answer(calls=tuple(calls))

