"""The oracle's knowledge: which task a prompt belongs to, and the reference solution as tool calls.

A prompt is matched by its text: a task's prompt (for a chain task, each of its prompts), stripped and with runs of
whitespace collapsed, must be contained in the conversation's first user message (whitespace collapsed the same
way). When several prompts match, the longest one wins. Never imports dagster.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from task_defs.loader import load_suite
from task_defs.models import Suite, Task

SOLVE_SCRIPT = "solve.sh"  # the same name sandbox.tasks.validation runs after laying the files
SOLVE_TIMEOUT_S = 120  # the timeout the validation gives a reference script
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Strip and collapse every run of whitespace to one space, so re-wrapped prompts still match."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class PlannedCall:
    """One tool call of a plan, with the arguments the agents' tools take."""

    name: str
    arguments: dict

    def describe(self) -> str:
        if self.name in ("write", "read", "edit"):
            return f"{self.name} {self.arguments.get('path')}"
        first = str(self.arguments.get("command", "")).strip().splitlines()
        head = next((line for line in first if line.strip() and not line.lstrip().startswith("#")), "")
        return f"{self.name} {head[:60]!r}"


@dataclass(frozen=True)
class Match:
    task: Task
    prompt_index: int  # which prompt of the task (always 0 for tasks with one prompt)


def reference_plan(task: Task, root: Path | None = None) -> list[PlannedCall]:
    """The reference solution as tool calls, in the order sandbox.tasks.validation.apply_reference lays it.

    One `write` per file of solution/ (path relative to the work folder, exact content), then one `bash` whose
    command is the text of solution/solve.sh when the task has one. A file that is not UTF-8 text is written by a
    `bash` call (base64), and an executable file gets a `chmod +x` after its write, so the result matches a copy.
    """
    plan: list[PlannedCall] = []
    root = root or task.solution_dir
    for src in sorted(root.rglob("*")):
        rel = src.relative_to(root)
        if rel.as_posix() == SOLVE_SCRIPT or "__pycache__" in rel.parts or not src.is_file():
            continue
        path = rel.as_posix()
        data = src.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            plan.append(PlannedCall("write", {"path": path, "content": text}))
        else:
            quoted = shlex.quote(path)
            blob = base64.b64encode(data).decode("ascii")
            mkdir = f"mkdir -p {shlex.quote(rel.parent.as_posix())} && " if rel.parent.parts else ""
            plan.append(PlannedCall("bash", {"command": f"{mkdir}printf '%s' '{blob}' | base64 -d > {quoted}"}))
        if os.access(src, os.X_OK):
            plan.append(PlannedCall("bash", {"command": f"chmod +x {shlex.quote(path)}"}))
    script = root / SOLVE_SCRIPT
    if script.is_file():
        plan.append(PlannedCall("bash", {"command": script.read_bytes().decode("utf-8"), "timeout": SOLVE_TIMEOUT_S}))
    return plan


class TaskIndex:
    """Every prompt of a suite, normalized, for matching a conversation to its task."""

    def __init__(self, suite: Suite | str | Path = "kbench"):
        self.suite = suite if isinstance(suite, Suite) else load_suite(suite)
        self._prompts: list[tuple[str, Task, int]] = []
        for task in self.suite.tasks:
            for i, prompt in enumerate(task.all_prompts):
                self._prompts.append((normalize(prompt), task, i))
        # the longest prompt first: a prompt contained in another one never shadows the longer one
        self._prompts.sort(key=lambda entry: -len(entry[0]))
        # built once, at start-up: a task whose reference cannot be read fails here, not mid-conversation
        self._plans = {task.id: reference_plan(task) for task in self.suite.tasks}
        self._step_plans = {(task.id, i): reference_plan(task, task.step_dir(i) / "solution")
                            for task in self.suite.tasks for i in range(len(task.steps))}

    def match(self, text: str) -> Match | None:
        haystack = normalize(text)
        if not haystack:
            return None
        for prompt, task, i in self._prompts:
            if prompt and prompt in haystack:
                return Match(task, i)
        return None

    def plan_for(self, m: Match) -> list[PlannedCall]:
        """The whole reference on a task's first prompt; nothing on the later prompts of a chain. A task graded step
        by step gets each step's own solution on that step's prompt."""
        if m.task.steps:
            return self._step_plans[(m.task.id, m.prompt_index)]
        return [] if m.prompt_index > 0 else self._plans[m.task.id]
