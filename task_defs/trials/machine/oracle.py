"""The `machine` oracle: the model's commands run on the mock machine, from the trial's fixture, and the verdict
comes from the state they leave, never from what they print.

In order: every path of `expect` must hold its value (else wrong_state); a query trial's `stdout_regex` must match
what one run of the machine's own programs printed (pacman, systemctl, deskctl: echo's output never counts, so
printing the answer is no answer; searched by the bounded matcher, sandbox/judge/matcher.py; else wrong_output);
every other path must be as the trial's reference commands leave it (else collateral: an extra package installed or
removed, a unit touched, a setting changed; the .pacsave list counts only where `expect` names it); and, where the
trial says so, no more than `max_commands` commands ran. A failing run that hit a syntax error, a construct the
machine lacks or a program it does not have names that as its cause (malformed_command, unsupported_syntax,
over_limit, not_found_command): what went wrong first.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from sandbox.judge.matcher import compile_regex
from task_defs.trials.machine.fixtures import check_spec, fixture
from task_defs.trials.machine.shell import CallResult, Session
from task_defs.trials.machine.state import changed, flat, same, value_at

QUERY_PROGRAMS = ("pacman", "systemctl", "deskctl")
NOT_COLLATERAL = ("pacsave",)  # whether a removal kept its config is the request's to say (then expect names it)
_REFUSED_CAUSE = {"malformed": "malformed_command", "unsupported": "unsupported_syntax", "too_big": "over_limit"}


def _key(spec: str | dict) -> str:
    return spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)


@functools.lru_cache(maxsize=2048)
def _ran_flat(fixture_key: str, commands: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    spec = fixture_key if not fixture_key.startswith("{") else json.loads(fixture_key)
    session = Session(fixture(spec))
    for c in commands:
        session.run(c)
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in flat(session.state).items())


def state_after(spec: str | dict, commands: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The flat state the commands leave on the fixture (cached: the reference's is asked for at every grading)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in _ran_flat(_key(spec), tuple(commands))}


def session_of(o) -> Session:
    return Session(fixture(o.fixture))


def run(o, commands: list[str]) -> Session:
    session = session_of(o)
    for c in commands:
        session.run(c)
    return session


def _diagnosis(session: Session) -> tuple[str, str] | None:
    """The first thing in the run that went wrong on the machine's side of things, as (cause, what)."""
    for i, call in enumerate(session.calls, 1):
        if call.refused:
            return _REFUSED_CAUSE[call.refused], f"call {i} was not run: {call.output.strip()[:160]}"
        if call.not_found:
            return "not_found_command", f"call {i}: {call.not_found[0]!r} is no program on this machine"
    return None


def printed_by_programs(session: Session) -> list[str]:
    return [inv.output for call in session.calls for inv in call.invocations if inv.program in QUERY_PROGRAMS]


def judge(o, commands: list[str]) -> tuple[bool, str | None, str]:
    """(passed, cause, detail) for the commands sent, in order, to the oracle's tool."""
    session = run(o, commands)
    after = flat(session.state)
    diagnosis = _diagnosis(session)

    def fail(cause: str, detail: str) -> tuple[bool, str, str]:
        if diagnosis:
            return False, diagnosis[0], f"{diagnosis[1]}; {detail}"
        return False, cause, detail

    for path, want in o.expect.items():
        got = value_at(after, path)
        if not same(want, got):
            return fail("wrong_state", f"{path} is {json.dumps(got)}, expected {json.dumps(want)}")
    if o.stdout_regex is not None:
        rx = compile_regex(o.stdout_regex)  # the bounded matcher: StepLimit is over_budget (grading.py)
        if not any(rx.search(text) for text in printed_by_programs(session)):
            shown = " | ".join(t.strip()[:60] for t in printed_by_programs(session))[:160]
            return fail("wrong_output", f"no query's output matches (printed: {shown!r})")
    reference = state_after(o.fixture, o.reference)
    extra = [p for p in changed(reference, after) if p not in o.expect and p not in NOT_COLLATERAL]
    if extra:
        before = state_after(o.fixture, ())
        said = "; ".join(f"{p}: {json.dumps(value_at(before, p))} -> {json.dumps(value_at(after, p))}"
                         for p in extra[:3])
        return fail("collateral", f"{len(extra)} change(s) nobody asked for: {said}")
    if o.max_commands is not None and session.commands > o.max_commands:
        return False, "too_many_commands", f"{session.commands} commands ran; the request asked for " \
                                           f"{o.max_commands} at most"
    return True, None, ""


def tool_result(result: CallResult) -> str:
    """What the model is shown after a call: the exit status and the output, as a shell tool reports them."""
    return json.dumps({"exit_code": result.status, "output": result.output}, ensure_ascii=False)


class Feed:
    """The machine during an exchange: each call to the trial's tool runs on it in turn, and its result is what the
    commands printed; calls to other tools get `neutral`. Grading replays the same calls from the fixture, so what
    the model saw is what the grading sees."""

    def __init__(self, o, neutral: str):
        self.o, self.neutral = o, neutral
        self.session = session_of(o)

    def result(self, name: str, arguments: dict | None) -> str:
        if name != self.o.tool:
            return self.neutral
        if arguments is None or set(arguments) != {"command"} or not isinstance(arguments["command"], str):
            return json.dumps({"error": f"{self.o.tool} takes one string argument, command"})
        return tool_result(self.session.run(arguments["command"]))


def fixture_problem(spec: str | dict) -> str | None:
    try:
        check_spec(spec)
    except Exception as exc:  # a fixture that does not build: the trial says so when it is loaded
        return str(exc)[:300]
    return None


def unchanged_expectation(spec: str | dict, expect: dict) -> bool:
    """Whether every path of `expect` already holds on the fixture (a trial `true` would pass)."""
    before = state_after(spec, ())
    return all(same(want, value_at(before, p)) for p, want in expect.items())
