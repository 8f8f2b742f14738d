"""What the scheduler (sandbox/engine/scheduler.py) and an executor share about one attempt, and the executor's side
of that contract.

An attempt lives in the run's queue as one AttemptState from its first try to its record: the box its current try
is kept in, when that try began, seconds per stage, the agent's counts and the files it changed. A try given back
on server trouble starts over in the same state with a fresh box, so nothing about an attempt is kept anywhere else.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ContextManager, Protocol

from sandbox.agents.record import EventLog, SessionStats
from sandbox.engine.kinds import Verdict
from sandbox.engine.spec import Attempt


class Box(Protocol):
    """Where one try of an attempt is kept until its record is whole (a folder, or a line of the run's ledger)."""

    events: EventLog

    def open(self) -> None: ...

    def ensure(self) -> None: ...

    def write_tests(self, text: str) -> None: ...

    def requeues(self) -> int: ...

    def requeue(self) -> None: ...

    def finish(self, result: dict) -> None: ...


@dataclass(eq=False)
class AttemptState:
    attempt: Attempt
    requeues: int = 0  # tries given back in this process (the box counts them across reruns of the command)
    box: Box | None = None  # the current try's; None until a try opens one
    started: str = ""  # the current try's wall-clock start, for the record
    t0: float = 0.0  # its monotonic start: the record's wall_s is this try's alone
    stages: dict = field(default_factory=dict)  # seconds per stage of the current try
    stats: SessionStats = field(default_factory=SessionStats)
    base: dict = field(default_factory=dict)  # the record's fields known before grading
    changes: list[dict] | None = None  # what the agent changed in its folder (agent kinds only)
    executed_at: float = 0.0  # when its sessions ended: the wait for a grader starts here

    @property
    def key(self) -> str:
        return self.attempt.key

    def begin(self) -> None:
        self.started = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.t0 = time.monotonic()
        self.stages, self.stats, self.changes = {}, SessionStats(), None


class Executor(Protocol):
    """How one kind of attempt is carried out and graded: an agent's sessions in a folder (agent_executor.py), or
    a chat exchange whose replies are kept as texts (chat_executor.py)."""

    grades_inline: bool  # grade in the worker that ran the attempt; else beside the next attempt's sessions
    room_fresh_s: float  # a disk check this recent stands for the next attempt

    def pending(self, attempts: list[Attempt]) -> list[Attempt]:
        """The attempts without a finished record: what this run still has to do."""

    def new_box(self, a: Attempt) -> Box: ...

    def replays(self) -> bool:
        """Whether some attempts may be answered from kept replies before any worker starts."""

    def gathered(self) -> ContextManager:
        """Records written inside it may be held and written together."""

    def execute(self, st: AttemptState, replay: bool) -> str | None:
        """Run the attempt (its stats and stages into st); the infra error when it could not be done."""

    def discard(self, st: AttemptState) -> None:
        """A try given up on infra: drop what it left, since the next try starts from scratch."""

    def verdict(self, st: AttemptState) -> Verdict: ...

    def graded_on_disk(self, st: AttemptState) -> bool:
        """Whether grading wrote anything a full disk could have spoiled."""

    def keep(self, st: AttemptState) -> list[str]:
        """Keep the attempt's final material in its box; what was left out."""

    def recorded(self, st: AttemptState, result: dict) -> None:
        """After the record is whole: pages for people."""

    def workdir(self, a: Attempt) -> Path: ...
