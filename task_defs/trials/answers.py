"""What a model answered and what the oracles say about it: the answer (its text and its calls), what running a shell
trial left, the verdict, and the value rules every oracle that reads arguments or JSON values shares."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from task_defs.trials.models import ArgRule, CallRule


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
    oracle_ms: float | None = field(default=None, compare=False)  # the grading thread's CPU time for it


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
