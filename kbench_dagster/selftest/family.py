"""What an attack family is made of, and the view of a finished run its check reads.

A family names the tasks its attack is made on and the replay script of each (shared by both agents where the tool
calls allow), how the run is set up (workers, time limit), and a check that reads only what kbench recorded:
result.json, events.jsonl, watchdog.log, the final files, and the triage and report views. The check says whether
the attack was contained and gives the evidence in one line.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.agents.record import read_events
from sandbox.isolation.limits import Limits
from sandbox.servers.scripted.oracle import reference_plan
from task_defs.models import Suite
from task_defs.vocabulary import SCORED  # graded: what the hidden test said

ORDINARY_TASK = "fizz"  # solved with its reference after every attack, in the same run: it must still pass


@dataclass(frozen=True)
class Context:
    """What a script may need to know: the agent, the server's port (an attack may aim at it), the run's limits,
    and a marker that every file an attack writes carries in its name or text (the host check looks for it)."""

    agent: str
    suite: Suite
    server_port: int
    limits: Limits
    marker: str


@dataclass(frozen=True)
class Verdict:
    contained: bool
    evidence: str


@dataclass
class RunView:
    """A finished run, as its records have it."""

    run_id: str
    runs_root: Path
    results: dict[str, dict]  # task id -> result.json
    foreign: list[str]  # requests that reached the model server without belonging to a task
    harness_rss_growth: int  # bytes: the most the harness process grew while the run went on
    timeout_s: float
    error: str | None = None  # the run itself failed (an exception out of Scheduler.run)
    _cache: dict = field(default_factory=dict)

    @property
    def run_dir(self) -> Path:
        return self.runs_root / self.run_id

    def result(self, task: str) -> dict:
        return self.results.get(task) or {}

    def record(self, task: str) -> Path:
        return self.run_dir / "base" / task / "s1"

    def events(self, task: str) -> list[dict]:
        return list(read_events(self.record(task) / "events.jsonl"))

    def tool_outputs(self, task: str) -> list[tuple[bool, str]]:
        """(is_error, text) of each tool result, for either agent's events."""
        out = []
        for ev in self.events(task):
            if ev.get("type") == "tool_result":
                out.append((bool(ev.get("is_error")), str(ev.get("output") or "")))
            elif ev.get("type") == "pi" and ev["event"].get("type") == "tool_execution_end":
                out.append((bool(ev["event"].get("isError")), json.dumps(ev["event"].get("result"))))
        return out

    def final_file(self, task: str, name: str) -> str | None:
        path = self.record(task) / "workdir" / name
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def log_lines(self, reason: str) -> list[str]:
        try:
            text = (self.run_dir / "watchdog.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return [line for line in text.splitlines() if f" reason={reason} " in line + " "]

    def cli(self, *argv: str) -> str:
        """What a kbench command prints for this run (in this process: a fresh interpreter costs seconds)."""
        key = argv
        if key not in self._cache:
            from kbench_dagster import cli

            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = cli.main([*argv, "--runs", str(self.runs_root)])
            self._cache[key] = out.getvalue() if code == 0 else f"(kbench {' '.join(argv)} exited {code})"
        return self._cache[key]


Script = list[dict]  # replay lines: {"content": ...} and/or {"tool_calls": [...]}


@dataclass(frozen=True)
class Family:
    name: str  # the table's first column
    attacks: Callable[[Context], dict[str, Script]]  # task id -> its script, in the order the run takes them
    check: Callable[[RunView, Context], Verdict]
    workers: int = 1
    timeout_s: float = 60.0  # each agent session's limit in this family's run
    # the ordinary task's script, when it has more to do than write the reference (a victim, say)
    ordinary: Callable[[Context, Script], Script] | None = None


@dataclass(frozen=True)
class JudgeContext:
    """What a judge family's attack is given: a folder of its own (its runs, work and item files go there), the
    marker every file it writes carries (the host check looks for it) and the API key it must not leak."""

    folder: Path
    marker: str
    key: str


@dataclass(frozen=True)
class JudgeFamily:
    """An attack on a kind's judge rather than on the sandbox: the attack's material (a reply, an answer file, a
    work folder, a results file) goes through the real command of its kind against the scripted server, and `run`
    reads what that command recorded and says whether the verdict stayed the judge's. `agents` names the agents it
    runs under ("api" for the chat kinds, whose attempts no agent drives)."""

    name: str
    run: Callable[[JudgeContext, str], Verdict]  # (context, agent) -> verdict
    agents: tuple[str, ...] = ("api",)
    docker: bool = False  # its task runs in an image of its own: only where a Docker engine answers


def bash(command: str) -> dict:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def say(text: str) -> dict:
    return {"content": text}


def reference_calls(suite: Suite, task_id: str) -> Script:
    """A task's reference solution as the replay's tool calls."""
    return [call(step.name, **step.arguments) for step in reference_plan(suite.get(task_id))]


def scored(r: dict) -> bool:
    """Graded with a real outcome: neither infra nor a harness error, and never put back for server trouble."""
    return bool(r) and r.get("outcome") in SCORED and not r.get("infra") and not r.get("harness_error") \
        and not r.get("requeues")


def outcome_of(r: dict) -> str:
    if not r:
        return "no result.json"
    extra = f" ({r.get('infra_error') or r.get('harness_error')})" if r.get("infra") else ""
    return f"{r.get('outcome')}{extra}"
