"""The oracles: a model's answer to a trial against the trial's oracle, as a verdict with a cause.

Pure functions over the answer (its text and the calls it made, native or written in the text), so grading costs
microseconds and is the same in a run, a regrade and the probe. A cause names what went wrong in words a triage
counts: wrong_tool, wrong_args, missing_calls, extra_calls, malformed_args, called_when_not_to, no_words,
wrong_channel, wrong_label, no_label, not_json, schema_invalid, wrong_value, empty, wrong_output, no_witness,
timeout. Only the shell oracle runs anything (through a runner it is given).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from sandbox.judge.parse import Refused, bounded_json
from task_defs.trials.models import ArgRule, CallRule, CallsExact, CallsSet, JsonAnswer, Label, NoCall, Shell, Trial

_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row: a word in any script


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict | None  # None: the arguments were not a JSON object (a format error, not a wrong value)
    form: str = "native"  # native | text (written in the reply's text)


@dataclass(frozen=True)
class Answer:
    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class ShellRun:
    """What running a shell trial's commands left: what they printed, the last one's exit status, the programs the
    trace shows ran, the text of the file the oracle reads, and whether the run was cut off by its time."""

    stdout: str
    exit_code: int | None
    programs: frozenset[str]
    file_text: str | None = None
    timed_out: bool = False


# runs a shell trial's commands: (files, commands, the file to read afterwards) -> ShellRun (sandbox/chatwork)
ShellRunner = Callable[[dict, list, "str | None"], ShellRun]


@dataclass(frozen=True)
class Verdict:
    passed: bool
    score: float  # 1.0 for a pass; partial credit for calls_exact and calls_set
    cause: str | None = None  # None for a pass
    detail: str = ""


def grade(trial: Trial, answer: Answer, shell: ShellRunner | None = None) -> Verdict:
    """The verdict on an answer; a shell trial needs `shell`, which runs its commands (the only oracle that runs
    anything)."""
    o = trial.oracle
    if isinstance(o, Shell):
        if shell is None:
            raise ValueError(f"{trial.id}: a shell trial is graded by running its commands: give a shell runner")
        return _shell(o, answer, shell)
    if isinstance(o, CallsExact):
        return _calls_exact(o, answer)
    if isinstance(o, CallsSet):
        return _calls_set(o, answer)
    if isinstance(o, NoCall):
        return _no_call(answer)
    if isinstance(o, Label):
        return _label(o, answer)
    if isinstance(o, JsonAnswer):
        return _json(o, answer)
    raise TypeError(f"unknown oracle {o!r}")  # pragma: no cover - the models admit no other kind


def reference_answer(trial: Trial) -> Answer:
    """A right answer built from the oracle alone (the gate grades it: every trial must pass its own)."""
    o = trial.oracle
    if isinstance(o, (CallsExact, CallsSet)):
        return Answer(calls=tuple(Call(r.name, {k: _example(a) for k, a in r.args.items() if not a.optional})
                                  for r in o.calls))
    if isinstance(o, NoCall):
        return Answer(text="None of the offered tools can do that.")
    if isinstance(o, Label):
        return Answer(text=o.answer)
    if isinstance(o, Shell):
        return Answer(calls=(Call(o.tool, {"command": o.reference}),))
    return Answer(text=json.dumps(o.reference))


def answer_shape(trial: Trial) -> str:
    """The shape of a right answer with its values set aside: the tools called with which arguments, the label,
    the JSON keys. Trials that share a shape ask one question many times; the clustered interval counts them once."""
    o = trial.oracle
    if isinstance(o, (CallsExact, CallsSet)):
        calls = [f"{c.name}({','.join(sorted(c.args))})" for c in o.calls]
        return f"{o.kind}:" + ";".join(sorted(calls) if isinstance(o, CallsSet) else calls)
    if isinstance(o, Label):
        return f"label:{o.answer.casefold()}/{len(o.labels)}"
    if isinstance(o, JsonAnswer):
        return "json:" + ",".join(sorted(o.checks))
    if isinstance(o, Shell):
        product = o.file_path or ("stdout" if o.stdout_regex else "exit")
        return f"shell:{','.join(sorted(o.ran)) or 'shortcut'}:{product}"
    return "no_call"


def _example(rule: ArgRule) -> Any:
    return rule.num if rule.num is not None else rule.any_of[0] if rule.any_of is not None else rule.eq


def work_grade(trial: Trial) -> str:
    """easy, medium or hard from what the trial demands: calls and arguments to get right, labels to tell apart,
    values to fill; declared nowhere, so no author can roll it."""
    o = trial.oracle
    if isinstance(o, (CallsExact, CallsSet)):
        args = sum(len(c.args) for c in o.calls)
        steps = len(o.calls) + (1 if isinstance(o, CallsSet) else 0)
        return "easy" if steps == 1 and args <= 2 else "hard" if steps >= 3 or args >= 6 else "medium"
    if isinstance(o, NoCall):
        return "easy" if len(trial.tools) <= 2 else "medium"
    if isinstance(o, Shell):
        checks = len(o.ran) + (o.stdout_regex is not None) + o.exit_zero + (o.file_path is not None)
        return "easy" if checks <= 2 and len(o.files) <= 1 else "hard" if checks >= 4 else "medium"
    if isinstance(o, Label):
        return "easy" if len(o.labels) <= 3 else "medium" if len(o.labels) <= 6 else "hard"
    return "easy" if len(o.checks) <= 2 else "medium" if len(o.checks) <= 4 else "hard"


# --------------------------------------------------------------------------------------------- values

def value_ok(rule: ArgRule, value: Any) -> bool:
    if rule.num is not None:
        return _is_number(value) and math.isfinite(float(value)) and abs(float(value) - rule.num) <= rule.tol
    wanted = rule.any_of if rule.any_of is not None else [rule.eq]
    if rule.norm == "bfcl":
        return any(_same(_bfcl(w), _bfcl(value), False) for w in wanted)
    return any(_same(w, value, rule.fold) for w in wanted)


_BFCL_MARKS = str.maketrans("", "", " ,./-_*^")


def _bfcl(v: Any) -> Any:
    """BFCL's own string comparison, applied through lists and dicts: lower case, no spaces nor , . / - _ * ^,
    single quotes as double."""
    if isinstance(v, str):
        return v.translate(_BFCL_MARKS).lower().replace("'", '"')
    if isinstance(v, list):
        return [_bfcl(x) for x in v]
    if isinstance(v, dict):
        return {k: _bfcl(x) for k, x in v.items()}
    return v


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same(want, got, fold: bool) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        return want.strip().casefold() == got.strip().casefold() if fold else want == got
    if _is_number(want) and _is_number(got):
        return float(want) == float(got)
    return type(want) is type(got) and want == got


def call_ok(rule: CallRule, call: Call) -> bool:
    """The call names the rule's tool, every required argument matches and no argument the rule does not know is
    given (a made-up argument is a wrong call, not noise)."""
    if call.name != rule.name or call.arguments is None:
        return False
    if set(call.arguments) - set(rule.args):
        return False
    return all((k in call.arguments and value_ok(r, call.arguments[k])) or (r.optional and k not in call.arguments)
               for k, r in rule.args.items())


# ---------------------------------------------------------------------------------------------- calls

def _no_calls_cause(answer: Answer) -> Verdict:
    cause = "empty" if not answer.text.strip() else "wrong_channel"
    return Verdict(False, 0.0, cause, "no tool call" if cause == "wrong_channel" else "an empty reply")


def _calls_exact(o: CallsExact, answer: Answer) -> Verdict:
    got = list(answer.calls)
    if not got:
        return _no_calls_cause(answer)
    prefix = 0
    for rule, call in zip(o.calls, got):
        if not call_ok(rule, call):
            break
        prefix += 1
    score = prefix / max(len(o.calls), len(got))
    if prefix == len(o.calls) == len(got):
        return Verdict(True, 1.0)
    if prefix == len(o.calls):
        return Verdict(False, score, "extra_calls", f"{len(got) - prefix} call(s) after the right ones")
    if prefix == len(got):
        return Verdict(False, score, "missing_calls", f"{len(o.calls) - prefix} call(s) missing after the right ones")
    return Verdict(False, score, *_why(o.calls[prefix], got[prefix], prefix))


def _why(rule: CallRule, call: Call, i: int) -> tuple[str, str]:
    if call.arguments is None:
        return "malformed_args", f"call {i + 1}: the arguments are not a JSON object"
    if call.name != rule.name:
        return "wrong_tool", f"call {i + 1}: {call.name!r}, expected {rule.name!r}"
    unknown = sorted(set(call.arguments) - set(rule.args))
    bad = [k for k, r in rule.args.items() if not ((k in call.arguments and value_ok(r, call.arguments[k]))
                                                     or (r.optional and k not in call.arguments))]
    return "wrong_args", f"call {i + 1} to {rule.name}: " + "; ".join(
        [f"unknown argument {k!r}" for k in unknown] + [f"{k}={call.arguments.get(k)!r}" for k in bad])


def _calls_set(o: CallsSet, answer: Answer) -> Verdict:
    got = list(answer.calls)
    if not got:
        return _no_calls_cause(answer)
    matched = _max_matching([[call_ok(r, c) for c in got] for r in o.calls], len(got))
    score = matched / max(len(o.calls), len(got))
    if matched == len(o.calls) == len(got):
        return Verdict(True, 1.0)
    if matched == len(o.calls):
        return Verdict(False, score, "extra_calls", f"{len(got) - matched} call(s) beyond the {matched} right ones")
    if any(c.arguments is None for c in got):
        return Verdict(False, score, "malformed_args", "a call's arguments are not a JSON object")
    if len(got) < len(o.calls):
        return Verdict(False, score, "missing_calls", f"{len(got)} call(s) of {len(o.calls)}")
    names = {r.name for r in o.calls}
    cause = "wrong_tool" if any(c.name not in names for c in got) else "wrong_args"
    return Verdict(False, score, cause, f"{matched} of {len(o.calls)} calls right")


def _max_matching(ok: list[list[bool]], n_right: int) -> int:
    """Maximum bipartite matching (augmenting paths): a greedy pairing can pair a call with the wrong rule and
    miss a full match that exists."""
    owner = [-1] * n_right

    def augment(i: int, seen: list[bool]) -> bool:
        for j in range(n_right):
            if ok[i][j] and not seen[j]:
                seen[j] = True
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, [False] * n_right) for i in range(len(ok)))


def _no_call(answer: Answer) -> Verdict:
    if answer.calls:
        forms = sorted({c.form for c in answer.calls})
        return Verdict(False, 0.0, "called_when_not_to", f"{len(answer.calls)} call(s) ({', '.join(forms)}); "
                                                         "no offered tool fits this request")
    if not answer.text.strip():
        return Verdict(False, 0.0, "empty", "an empty reply")
    if not _WORD.search(answer.text):  # `{}` or a lone mark says nothing: a no-knowledge answer must not pass
        return Verdict(False, 0.0, "no_words", f"{answer.text.strip()[:40]!r} says nothing in words")
    return Verdict(True, 1.0)


# ---------------------------------------------------------------------------------------------- shell

def _shell(o: Shell, answer: Answer, shell: ShellRunner) -> Verdict:
    if not answer.calls:
        return _no_calls_cause(answer)
    commands = []
    for i, c in enumerate(answer.calls):
        if c.arguments is None:
            return Verdict(False, 0.0, "malformed_args", f"call {i + 1}: the arguments are not a JSON object")
        if c.name != o.tool or set(c.arguments) != {"command"} or not isinstance(c.arguments["command"], str):
            return Verdict(False, 0.0, "wrong_tool" if c.name != o.tool else "wrong_args",
                           f"call {i + 1}: {o.tool} with one string argument, command, was expected")
        commands.append(c.arguments["command"])
    run = shell(dict(o.files), commands, o.file_path)
    if run.timed_out:
        return Verdict(False, 0.0, "timeout", "the commands ran past their time (a safety stop)")
    if o.stdout_regex is not None and not re.search(o.stdout_regex, run.stdout, re.MULTILINE):
        return Verdict(False, 0.0, "wrong_output", f"the output {run.stdout[:120]!r} does not match")
    if o.exit_zero and run.exit_code != 0:
        return Verdict(False, 0.0, "wrong_output", f"the last command exited {run.exit_code}")
    if o.file_path is not None and run.file_text != o.file_text:
        what = "is missing" if run.file_text is None else f"holds {run.file_text[:120]!r}"
        return Verdict(False, 0.0, "wrong_output", f"{o.file_path} {what}")
    unseen = [p for p in o.ran if p not in run.programs]
    if unseen:
        return Verdict(False, 0.0, "no_witness", f"the right bytes, but {', '.join(unseen)} never ran: the work "
                                                 "was not done")
    return Verdict(True, 1.0)


# ------------------------------------------------------------------------------------------ the text

def _label(o: Label, answer: Answer) -> Verdict:
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


def _json(o: JsonAnswer, answer: Answer) -> Verdict:
    if answer.calls:
        return Verdict(False, 0.0, "wrong_channel", "a tool call where a JSON answer was asked")
    text = _unfence(answer.text)
    if not text:
        return Verdict(False, 0.0, "empty", "an empty reply")
    try:
        value = bounded_json(text)
    except Refused as exc:  # too deep or too big counts as not the JSON asked for: the model's answer
        return Verdict(False, 0.0, "not_json", str(exc))
    problem = next(iter(_validator(o.json_schema).iter_errors(value)), None)
    if problem is not None:
        where = "/".join(map(str, problem.path)) or "the answer"
        return Verdict(False, 0.0, "schema_invalid", f"{where}: {problem.message[:200]}")
    bad = [p for p, rule in o.checks.items() if not _path_ok(value, p, rule)]
    if bad:
        return Verdict(False, 0.0, "wrong_value", "wrong at " + ", ".join(bad))
    return Verdict(True, 1.0)


_VALIDATORS: dict[int, tuple[dict, object]] = {}  # id of a trial's schema -> (that schema, its validator)


def _validator(schema: dict):
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
