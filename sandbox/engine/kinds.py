"""Kinds of work: what one unit needs before, during and after its execution, behind two small protocols.

The Scheduler (sandbox/engine/scheduler.py) does everything kinds share: planning, resume, requeue and the infra/model
split, server slots, disk rules, records and the manifest. A kind says what its units are and how what they left
is graded into one Verdict, as one of two protocols, told apart by `runs_agent`:
- AgentKind: the run's agent (pi or builtin) in one sandboxed session per prompt, in a folder laid by `prepare`,
  graded by `grade` from what is left there (sandbox/engine/agent_executor.py). Agent tasks, below, are the first;
  kernel tasks (gpu/kind.py) another.
- ChatKind: the kind's own `execute` asks the server through a ChatSession (sandbox/engine/chat.py) and keeps the
  replies as texts by name, graded by `grade_kept` (sandbox/engine/chat_executor.py): text jobs, tool-use trials,
  capability items, the breakdown's prompts.
A new kind is a module with one of these and a KindCard (sandbox/engine/registry.py), never a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sandbox.engine.agent_rows import agent_task_rows
from sandbox.engine.registry import KindCard
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.session import SessionResult
from sandbox.tasks import steps
from sandbox.tasks.grading import grade, missing_requirements, task_isolation
from sandbox.tasks.validation import prepare_workdir
from task_defs.loader import load_suite
from task_defs.models import Suite, Task

if TYPE_CHECKING:
    from sandbox.engine.chat import ChatSession


@dataclass
class Verdict:
    """What grading said of one unit's final files: an outcome of task_defs.vocabulary and the evidence."""

    outcome: str
    detail: str
    duration_s: float
    session: SessionResult | None = None  # the grading sandbox's session, for its kill counts
    extra: dict = field(default_factory=dict)  # fields of this kind, kept in result.json under the kind's name
    output: str = ""  # grade_kept's evidence for a reader (grade writes its own to output_path)


class Kind(Protocol):
    """What every kind has."""

    name: str  # also the suite name in manifests
    fingerprint: str  # changes whenever anything that decides a verdict changes
    runs_agent: bool  # True: an AgentKind; False: a ChatKind

    @property
    def units(self) -> list: ...

    def get(self, unit_id: str): ...

    def unit_fields(self, unit) -> dict:
        """category and tier, as the store and the board group units."""

    def missing(self, unit) -> list[str]:
        """Commands the unit needs that this machine lacks: the attempt is skipped, not scored."""

    def timeout_s(self, unit, run_timeout_s: float) -> float: ...


class AgentKind(Kind, Protocol):
    def prepare(self, unit, workdir: Path, cfg: IsolationConfig) -> None:
        """Lay the unit's starting folder (raise sandbox.tasks.validation.PrepareError when that fails)."""

    def prompts(self, unit) -> list[str]:
        """One agent session per prompt, in order."""

    def session_isolation(self, unit, cfg: IsolationConfig) -> IsolationConfig:
        """The sandbox the agent's sessions of this unit get."""

    def grade(self, unit, workdir: Path, output_path: Path, cfg: IsolationConfig, log_path: Path | None) -> Verdict:
        """Grade what the agent left in workdir; write the evidence a reader needs to output_path."""


class ChatKind(Kind, Protocol):
    def execute(self, unit, chat: ChatSession, kept: dict[str, str]) -> None:
        """Ask what the unit needs and put the replies in `kept` (name -> text) as they come, so an exchange cut
        short keeps what it got; the record keeps them and grade_kept reads them. ChatInfra and ChatTimeout pass
        through to the executor."""

    def grade_kept(self, unit, kept: dict[str, str], scratch: Path, cfg: IsolationConfig,
                   log_path: Path | None) -> Verdict:
        """Grade the kept replies, the evidence in the Verdict's output. `scratch` does not exist; grading that
        runs something makes it and works there (the executor removes it afterwards)."""


WorkKind = AgentKind | ChatKind


class AgentTasks:
    """The suite's programming, repair, terminal and chain tasks, graded by their hidden tests."""

    runs_agent = True

    def __init__(self, suite: Suite):
        self.suite = suite
        self.name = suite.name
        self.fingerprint = suite.fingerprint

    @property
    def units(self) -> list[Task]:
        return list(self.suite.tasks)

    def get(self, unit_id: str) -> Task:
        return self.suite.get(unit_id)

    def unit_fields(self, unit: Task) -> dict:
        return {"category": unit.category, "tier": unit.tier}

    def missing(self, unit: Task) -> list[str]:
        return missing_requirements(unit)

    def prepare(self, unit: Task, workdir: Path, cfg: IsolationConfig) -> None:
        prepare_workdir(unit, workdir, cfg)

    def prompts(self, unit: Task) -> list[str]:
        return unit.all_prompts

    def session_isolation(self, unit: Task, cfg: IsolationConfig) -> IsolationConfig:
        return task_isolation(unit, cfg)

    def timeout_s(self, unit: Task, run_timeout_s: float) -> float:
        return min(run_timeout_s, unit.agent_timeout)

    def before_session(self, unit: Task, i: int, workdir: Path, cfg: IsolationConfig) -> None:
        if unit.steps:
            steps.lay_step(unit, i, workdir, cfg)

    def after_session(self, unit: Task, i: int, workdir: Path, cfg: IsolationConfig, record: Path,
                      log_path: Path | None) -> bool:
        """A task graded step by step grades step i now, keeping the grade in the record folder; False: stop."""
        if not unit.steps:
            return True
        g = steps.grade_step(unit, i, workdir, output_path=record / f"tests.step-{i + 1}.txt", cfg=cfg,
                             log_path=log_path)
        steps.record(record, g, first=i == 0)
        return not steps.stops_after(unit, i, g)

    def grade(self, unit: Task, workdir: Path, output_path: Path, cfg: IsolationConfig,
              log_path: Path | None) -> Verdict:
        if unit.steps:  # each step was graded right after its session: the verdict is theirs together
            grades = steps.recorded(output_path.parent)
            outcome, detail = steps.verdict(unit, grades)
            output_path.write_text(detail + "\n", encoding="utf-8")
            return Verdict(outcome, detail, sum(g.duration_s for g in grades))
        g = grade(unit, workdir, output_path=output_path, cfg=cfg, log_path=log_path)
        return Verdict(g.outcome, g.detail, g.duration_s, g.session)


def as_kind(work) -> WorkKind:
    """A loaded suite is the agent-task kind; anything else is taken to be a kind already."""
    return AgentTasks(work) if isinstance(work, Suite) else work


# any suite name no registered kind claims (sandbox/engine/registry.py): a bundled suite or a folder of tasks
CARD = KindCard(name="", table="gradings", make=lambda suite: AgentTasks(load_suite(suite)), rows=agent_task_rows,
                run_suffix=False)
