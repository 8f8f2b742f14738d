"""The text jobs as a kind of work: each item is one attempt, one chat request, its reply kept and scored.

The reply is kept by name (reply.txt) in the attempt's record, and a regrade after a scorer or
answer change reads it again without asking the model. Units are `JOB.ITEM` (e.g. tickets.tk01).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sandbox.chatwork.textjob_card import NAME, REPLY
from sandbox.engine.chat import ChatSession
from sandbox.engine.kinds import Verdict
from sandbox.isolation.bwrap import IsolationConfig
from task_defs.textjobs.loader import fingerprint, load_jobs
from task_defs.textjobs.models import Item, Job
from task_defs.textjobs.scoring import score

TIMEOUT_S = 300.0  # one reply; a safety stop, its outcome is timeout, never wrong


@dataclass(frozen=True)
class TextItem:
    job: Job
    item: Item

    @property
    def id(self) -> str:
        return f"{self.job.id}.{self.item.id}"

    @property
    def prompt(self) -> str:
        return self.job.prompt_for(self.item)


class TextJobs:
    name = NAME
    runs_agent = False

    def __init__(self, jobs: list[Job] | None = None):
        self.jobs = jobs if jobs is not None else load_jobs()
        self.fingerprint = fingerprint(self.jobs)
        self._units = [TextItem(j, i) for j in self.jobs for i in j.items]
        self._by_id = {u.id: u for u in self._units}

    @property
    def units(self) -> list[TextItem]:
        return list(self._units)

    def get(self, unit_id: str) -> TextItem:
        if unit_id not in self._by_id:
            raise KeyError(f"no text job item {unit_id!r}; items are JOB.ITEM of the jobs "
                           f"{', '.join(j.id for j in self.jobs)} (e.g. {self._units[0].id})")
        return self._by_id[unit_id]

    def select(self, only: str | None = None, limit: int | None = None) -> list[TextItem]:
        """The items of the jobs named in `only` (all when None), the first `limit` of each."""
        names = [n.strip() for n in (only or "").split(",") if n.strip()]
        known = [j.id for j in self.jobs]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"--only: unknown job {', '.join(unknown)}; the jobs are {', '.join(known)}")
        if limit is not None and limit < 1:
            raise ValueError("--limit must be a positive number of items per job")
        return [TextItem(j, i) for j in self.jobs if not names or j.id in names for i in j.items[:limit]]

    def unit_fields(self, unit: TextItem) -> dict:
        return {"category": unit.job.id, "tier": unit.job.family}

    def missing(self, unit: TextItem) -> list[str]:
        return []

    def timeout_s(self, unit: TextItem, run_timeout_s: float) -> float:
        return min(run_timeout_s, TIMEOUT_S)

    def execute(self, unit: TextItem, chat: ChatSession, kept: dict[str, str]) -> None:
        kept[REPLY] = chat.ask([{"role": "user", "content": unit.prompt}]).content

    def grade_kept(self, unit: TextItem, kept: dict[str, str], scratch: Path, cfg: IsolationConfig,
                   log_path: Path | None) -> Verdict:
        if REPLY not in kept:
            return Verdict("nofile", "no reply was kept", 0.0)
        s = score(unit.job, unit.item, kept[REPLY])
        return Verdict("pass" if s.passed else "wrong", s.note or ("full marks" if s.passed else ""), 0.0,
                       extra={"textjob": {"job": unit.job.id, "family": unit.job.family, "item": unit.item.id,
                                          **s.to_dict()}},
                       output=f"{unit.id}: {'pass' if s.passed else 'fail'} ({s.parse}, score {s.score}) {s.note}\n")
