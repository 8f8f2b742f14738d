"""The oracles: a model's answer to a trial against the trial's oracle, as a verdict with a cause.

Pure functions over the answer (its text and the calls it made, native or written in the text), so grading costs
microseconds and is the same in a run, a regrade and the probe. A cause names what went wrong in words a triage
counts: wrong_tool, wrong_args, missing_calls, extra_calls, malformed_args, called_when_not_to, no_words,
wrong_channel, wrong_label, no_label, not_json, schema_invalid, wrong_value, empty, wrong_output, no_witness,
timeout; the machine oracle adds wrong_state, collateral, malformed_command, unsupported_syntax, over_limit,
not_found_command, too_many_commands; and over_budget (score 0) for any kind. Only the shell oracle runs anything
real (through a runner it is given); the machine oracle runs the commands on a mock machine in Python
(task_defs/trials/machine/).

Every oracle has a budget, and none is measured in wall time, because a verdict must never depend on how busy the
machine is: a strike graded beside a build would otherwise fail answers that pass on an idle machine.

- The in-process kinds (calls_exact, calls_set, no_call, label, json_schema) get IN_PROCESS_BUDGET_S of the
  grading thread's CPU time (time.thread_time): the time this thread ran, which other threads and processes do
  not add to, however many there are. Their grading takes microseconds, so the budget only ever meets an answer
  that makes the oracle work abnormally hard. What is the trial's and not the answer's (loading jsonschema, building
  a schema's validator) is done before the clock starts, and the garbage collector is held while it runs, so a
  collection of the whole process's heap is not charged to one answer. Over budget is cause over_budget, score 0.
- The machine kind gets MACHINE_BUDGET_S of the same CPU time: it replays the commands on the mock machine, which
  is Python work of the same nature, only longer.
- A stdout_regex (shell, machine) is searched by the bounded matcher (sandbox/judge/matcher.py), whose budget is
  its STEP_LIMIT in counted steps: the same pattern on the same output takes the same steps on any machine. A
  search that reaches it is cause over_budget, score 0. The shell oracle's wall-clock stop on the sandboxed commands
  stays as it was: a safety stop whose outcome is timeout, never a verdict.

Each verdict carries oracle_ms, the grading thread's CPU time for it (for a shell trial: our side of running the
sandbox, not the commands' own processes), whatever the kind.
"""

from __future__ import annotations

import gc
import json
import re
import time
from typing import Any

from sandbox.judge.matcher import StepLimit, compile_regex
from task_defs.trials.answers import Answer, Call, ShellRun, ShellRunner, Verdict, call_ok, value_ok
from task_defs.trials.machine import oracle as machine
from task_defs.trials.models import (
    ArgRule,
    CallRule,
    CallsExact,
    CallsSet,
    JsonAnswer,
    Label,
    Machine,
    NoCall,
    Shell,
    Trial,
)
from task_defs.trials.text_oracles import json_verdict as _json
from task_defs.trials.text_oracles import label_verdict as _label
from task_defs.trials.text_oracles import validator as _validator

__all__ = ["Answer", "Call", "ShellRun", "ShellRunner", "Verdict", "answer_shape", "call_ok", "grade",
           "reference_answer", "value_ok", "work_grade"]

_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row: a word in any script
IN_PROCESS_BUDGET_S = 0.050  # of the grading thread's CPU time (time.thread_time), per in-process grading
IN_PROCESS = ("calls_exact", "calls_set", "no_call", "label", "json_schema")
# the mock machine replays every command from its fixture, twice for the reference's state on a cold cache: its
# gradings take 0.1-0.3 ms, the slowest first one about 40 ms of CPU, so ten times that is its budget
MACHINE_BUDGET_S = 0.5
CPU_BUDGETS = {**dict.fromkeys(IN_PROCESS, IN_PROCESS_BUDGET_S), "machine": MACHINE_BUDGET_S}
OVER_BUDGET = "over_budget"


def grade(trial: Trial, answer: Answer, shell: ShellRunner | None = None) -> Verdict:
    """The verdict on an answer; a shell trial needs `shell`, which runs its commands (the only oracle that runs
    anything). Within its budget (the module's docstring), else over_budget; oracle_ms says what it took."""
    o = trial.oracle
    if isinstance(o, Shell) and shell is None:
        raise ValueError(f"{trial.id}: a shell trial is graded by running its commands: give a shell runner")
    budget = CPU_BUDGETS.get(o.kind)  # the shell's is its matcher's steps and its commands' safety stop
    if isinstance(o, JsonAnswer):
        _validator(o.json_schema)  # the trial's cost, not the answer's: made (and kept) before the clock starts
    held = budget is not None and gc.isenabled()
    if held:  # a collection of the whole heap is no cost of this answer's
        gc.disable()
    start = time.thread_time()
    try:
        v = _verdict(o, answer, shell)
    finally:
        cpu = time.thread_time() - start
        if held:
            gc.enable()
    if budget is not None and cpu > budget:
        return Verdict(False, 0.0, OVER_BUDGET, f"the oracle took {1000 * cpu:.1f} ms of the grading thread's CPU, "
                                                f"over its {1000 * budget:g} ms budget", 1000 * cpu)
    return Verdict(v.passed, v.score, v.cause, v.detail, 1000 * cpu)


def _verdict(o, answer: Answer, shell: ShellRunner | None) -> Verdict:
    if isinstance(o, Shell):
        return _shell(o, answer, shell)
    if isinstance(o, Machine):
        return _machine(o, answer)
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
    if isinstance(o, Machine):
        return Answer(calls=tuple(Call(o.tool, {"command": c}) for c in o.reference))
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
    if isinstance(o, Machine):  # the kinds of paths set, names aside: packages.*.installed
        paths = sorted({re.sub(r"^([a-z_]+)\..+\.([a-z_]+)$", r"\1.*.\2", p) for p in o.expect})
        return f"machine:{len(o.reference)}:{','.join(paths)}" + (":stdout" if o.stdout_regex else "")
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
    if isinstance(o, Machine):  # command lines to get right in order, values to bring about
        steps, checks = len(o.reference), len(o.expect) + (o.stdout_regex is not None)
        return "easy" if steps == 1 and checks <= 2 else "hard" if steps >= 3 or checks >= 5 else "medium"
    if isinstance(o, Label):
        return "easy" if len(o.labels) <= 3 else "medium" if len(o.labels) <= 6 else "hard"
    return "easy" if len(o.checks) <= 2 else "medium" if len(o.checks) <= 4 else "hard"


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

def _commands(tool: str, answer: Answer) -> list[str] | Verdict:
    """The command lines sent to the shell tool, in order; a Verdict when a call is not one."""
    if not answer.calls:
        return _no_calls_cause(answer)
    commands = []
    for i, c in enumerate(answer.calls):
        if c.arguments is None:
            return Verdict(False, 0.0, "malformed_args", f"call {i + 1}: the arguments are not a JSON object")
        if c.name != tool or set(c.arguments) != {"command"} or not isinstance(c.arguments["command"], str):
            return Verdict(False, 0.0, "wrong_tool" if c.name != tool else "wrong_args",
                           f"call {i + 1}: {tool} with one string argument, command, was expected")
        commands.append(c.arguments["command"])
    return commands


def _shell(o: Shell, answer: Answer, shell: ShellRunner) -> Verdict:
    commands = _commands(o.tool, answer)
    if isinstance(commands, Verdict):
        return commands
    run = shell(dict(o.files), commands, o.file_path)
    if run.timed_out:
        return Verdict(False, 0.0, "timeout", "the commands ran past their time (a safety stop)")
    if o.stdout_regex is not None:
        try:
            found = compile_regex(o.stdout_regex).search(run.stdout)
        except StepLimit as exc:  # counted work, the same on every machine: never a wall-clock stop
            return Verdict(False, 0.0, OVER_BUDGET, f"stdout_regex on {len(run.stdout)} characters of output: {exc}")
        if not found:
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


def _machine(o: Machine, answer: Answer) -> Verdict:
    commands = _commands(o.tool, answer)
    if isinstance(commands, Verdict):
        return commands
    try:
        passed, cause, detail = machine.judge(o, commands)  # its stdout_regex: the bounded matcher too
    except StepLimit as exc:
        return Verdict(False, 0.0, OVER_BUDGET, f"stdout_regex on what the machine's programs printed: {exc}")
    return Verdict(True, 1.0) if passed else Verdict(False, 0.0, cause, detail)
