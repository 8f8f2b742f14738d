"""Checks of the trial suite that need no server: the gate (what must hold before a suite is published) and the
probe (no-knowledge strategies scored by the real oracles). Used by `kbench trials gate|probe` and by the Dagster
check on the trial_suite asset."""

from __future__ import annotations

import contextlib
import functools
import json
import shlex
import tempfile
from collections import defaultdict
from pathlib import Path

from sandbox.chatwork.shell_oracle import SandboxShell
from sandbox.chatwork.trials import ToolTrials, request_of
from sandbox.judge.matcher import StepLimit, compile_regex
from task_defs.trials.grading import Answer, Call, ShellRunner, grade, reference_answer
from task_defs.trials.loader import normalised_prompt
from task_defs.trials.machine import oracle as machine

STRUCTURAL = {"an empty reply": Answer(), "a bare {}": Answer(text="{}")}
# What a stdout_regex must search within the bounded matcher's step limit besides its reference output: long runs of
# what outputs are made of. An honest pattern takes at most some hundred thousand steps on them; one that backtracks
# exponentially, or worse than quadratically, reaches the limit here, and the gate fails it before any run meets it.
ADVERSARIAL = {f"256 x {unit!r}{end}": (unit * 256)[:256] + end
               for unit in (" ", "\t", "7", "a", "x", "\n", "a ", "7 ", "7\n", " \n", "a\n", "-", ".")
               for end in ("", "#")}


def gate_problems(kind: ToolTrials, shell: ShellRunner | None = None) -> list[str]:
    """What keeps the suite from being published: a trial its own reference fails (a stdout_regex that passes the
    matcher's step limit on the reference's output fails it as over_budget), a stdout_regex that passes the limit
    on an ADVERSARIAL text, a no-knowledge answer that passes, a declared shortcut that passes, a prompt asked
    twice."""
    problems, seen = [], {}
    with shell_runner(shell) as shell:
        for u in kind.units:
            v = grade(u.trial, reference_answer(u.trial), shell)
            if not v.passed:
                problems.append(f"{u.id}: its reference answer fails ({v.cause}: {v.detail[:160]})")
            problems += _pattern_problems(u)
            for what, answer in STRUCTURAL.items():
                if grade(u.trial, answer, shell).score > 0:
                    problems.append(f"{u.id}: {what} scores {grade(u.trial, answer, shell).score:.2f}")
            o = u.trial.oracle
            if o.kind == "shell" and o.shortcut and grade(u.trial, _run(o.tool, o.shortcut), shell).passed:
                problems.append(f"{u.id}: its shortcut case passes")
            for what, answer in (_machine_forgeries(u) if o.kind == "machine" else {}).items():
                if grade(u.trial, answer).score > 0:
                    problems.append(f"{u.id}: {what} scores {grade(u.trial, answer).score:.2f}")
            key = normalised_prompt(u.trial)
            if key in seen:
                problems.append(f"{u.id}: the same prompt as {seen[key]}")
            seen[key] = u.id
    return problems


def _pattern_problems(u) -> list[str]:
    pattern = getattr(u.trial.oracle, "stdout_regex", None)
    found = _pathological(pattern) if pattern is not None else None
    return [f"{u.id}: its stdout_regex is pathological: {found}"] if found else []


@functools.lru_cache(maxsize=4096)
def _pathological(pattern: str) -> str | None:
    for what, text in ADVERSARIAL.items():
        try:
            compile_regex(pattern).search(text)
        except StepLimit as exc:
            return f"on {what} {exc}, the bounded matcher's limit"
    return None


@contextlib.contextmanager
def shell_runner(given: ShellRunner | None):
    """The runner given, else a sandboxed shell in a folder of its own for as long as the check lasts."""
    if given is not None:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="kbench-trials-") as d:
        yield SandboxShell(Path(d))


def _run(tool: str, command: str) -> Answer:
    return Answer(calls=(Call(tool, {"command": command}),))


def _first_tool(u) -> Answer:
    """Takes the tool offered first (attempt 1's order) with the right arguments whenever that is the right tool:
    what choosing by position is worth; the first label for a label trial, `{}` for a JSON one."""
    o = u.trial.oracle
    if o.kind == "label":
        return Answer(text=o.labels[0])
    _, tools, _ = request_of(u, 1)
    if not tools:
        return Answer(text="{}")
    first = tools[0]["function"]["name"]
    right = [c for c in reference_answer(u.trial).calls if c.name == first][:1]
    return Answer(calls=tuple(right) or (Call(first, {}),))


def _common_label(kind: ToolTrials):
    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for u in kind.units:
        if u.trial.oracle.kind == "label":
            counts[tuple(u.trial.oracle.labels)][u.trial.oracle.answer] += 1
    best = {labels: max(c, key=lambda k: (c[k], k)) for labels, c in counts.items()}
    return lambda u: Answer(text=best[tuple(u.trial.oracle.labels)] if u.trial.oracle.kind == "label" else "")


def _named_in_text(u) -> Answer:
    """The label the request's text names most often (the list of labels itself counts once for each)."""
    if u.trial.oracle.kind != "label":
        return Answer()
    text, labels = u.trial.messages[-1].content.casefold(), u.trial.oracle.labels
    return Answer(text=max(labels, key=lambda x: (text.count(x.casefold()), -labels.index(x))))


def _forgeries(u, shell: ShellRunner) -> dict[str, Answer]:
    """A shell trial's structural no-knowledge answers: print what the oracle reads (the reference's output, or the
    file it reads), run `true`, write the file the oracle reads by hand; and the same product after a witness
    forged for every program the trial names: a shell function, `hash -p` to echo, a link to echo and a look-alike
    script, each named like the program in a folder put first on PATH. The witness must fail them all."""
    o = u.trial.oracle
    done = shell(dict(o.files), [o.reference], o.file_path)
    product = done.file_text if o.file_path else done.stdout
    printed = f"printf '%s' {shlex.quote(product or '')}"
    forged = f"{printed} > {shlex.quote(o.file_path)}" if o.file_path else printed
    named = "".join(f"{p} > /dev/null; " for p in o.ran)  # each program called by name, its output set aside
    on_path = "mkdir -p .kb-forged && PATH=$PWD/.kb-forged:$PATH && "
    witnesses = {
        "function": "".join(f"{p}() {{ :; }}; " for p in o.ran),
        "hash -p to echo": "".join(f"hash -p /bin/echo {p}; " for p in o.ran),
        "link to echo": on_path + "".join(f"ln -s /bin/echo .kb-forged/{p} && " for p in o.ran),
        "script first on PATH": on_path + "".join(
            f"printf '#!/bin/sh\\n' > .kb-forged/{p} && chmod +x .kb-forged/{p} && " for p in o.ran),
    }
    return {"echo the witness pattern": _run(o.tool, printed), "run true": _run(o.tool, "true"),
            "forge the file the oracle reads": _run(o.tool, forged),
            **{f"forged witness: {how}": _run(o.tool, f"{made}{named}{forged}") for how, made in witnesses.items()}}


def _machine_forgeries(u) -> dict[str, Answer]:
    """A machine trial's structural no-knowledge answers: run `true`, echo the state the oracle expects, echo what
    the reference's queries print. The state is unchanged and echo is no query program: each must score 0."""
    o = u.trial.oracle
    printed = "".join(machine.printed_by_programs(machine.run(o, list(o.reference)))).rstrip("\n")
    return {"run true": _run(o.tool, "true"),
            "echo the expected state": _run(o.tool, f"echo {shlex.quote(json.dumps(o.expect))}"),
            "echo what the queries print": _run(o.tool, f"echo {shlex.quote(printed)}")}


def probe(kind: ToolTrials, shell: ShellRunner | None = None) -> dict[str, dict]:
    """No-knowledge strategies scored by the real oracles, knowing the oracle kind: the structural ones must score
    exactly 0 (else the gate fails); the chance ones are the floor a model has to beat. Each share is over the
    trials the strategy applies to (the shell forgeries: the shell trials)."""
    chance = {"the first tool offered": _first_tool, "the most common label": _common_label(kind),
              "the label the text names": _named_in_text}
    out: dict[str, dict] = {}

    def score(name: str, kind_: str, trial, answer: Answer) -> None:
        v = out.setdefault(name, {"kind": kind_, "score": 0.0, "trials": 0})
        v["score"] += grade(trial, answer, shell).score
        v["trials"] += 1

    with shell_runner(shell) as shell:
        for u in kind.units:
            for name, answer in STRUCTURAL.items():
                score(name, "structural", u.trial, answer)
            if u.trial.oracle.kind == "shell":
                for name, answer in _forgeries(u, shell).items():
                    score(name, "structural", u.trial, answer)
            if u.trial.oracle.kind == "machine":
                for name, answer in _machine_forgeries(u).items():
                    score(name, "structural", u.trial, answer)
            for name, strategy in chance.items():
                score(name, "chance", u.trial, strategy(u))
    for v in out.values():
        v["share"] = v["score"] / v["trials"]
    return out


