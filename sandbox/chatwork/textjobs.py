"""The text jobs as a kind of work: each item is one attempt, one chat request, its reply kept and scored.

The reply is kept by name (reply.txt) in the attempt's record, and a regrade after a scorer or
answer change reads it again without asking the model. Units are `JOB.ITEM` (e.g. tickets.tk01).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sandbox.engine.chat import ChatSession
from sandbox.engine.kinds import Verdict
from sandbox.engine.registry import REPLY_CHARS, KindCard, RowSource, named_personas
from sandbox.isolation.bwrap import IsolationConfig
from task_defs.textjobs.loader import fingerprint, load_jobs
from task_defs.textjobs.models import Item, Job
from task_defs.textjobs.scoring import score

NAME = "textjobs"
REPLY = "reply.txt"
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


def textjob_rows(src: RowSource) -> dict[str, list[dict]]:
    """A textjob_replies row: the item's score with its latest grading applied, its prompt and the reply kept."""
    r = src.result
    t = r.get("textjob") or {}
    job, _, item = r["task"].partition(".")
    prompt = next((ev.get("messages") for ev in src.record.events() if ev.get("type") == "request"), None)
    return {"textjob_replies": [{
        **{c: r.get(c) for c in ("run_id", "model", "condition", "seed", "outcome", "input_tokens", "output_tokens",
                                 "duration_s", "infra_error", "suite_fingerprint", "graded_at", "started_at",
                                 "finished_at")},
        "job": job, "family": r.get("tier"), "item": item,
        **{c: t.get(c) for c in ("parse", "score", "passed", "tp", "n_pred", "n_gold", "expected", "predicted",
                                 "fields", "note")},
        "prompt": prompt[-1]["content"] if prompt else None,
        "reply": src.record.file_text("reply.txt", REPLY_CHARS)}]}


CARD = KindCard(name=NAME, table="textjob_replies", make=lambda suite: TextJobs(), rows=textjob_rows,
                personas=named_personas("sandbox.chatwork.oracle:TextJobPersona", "oracle", "noisy"),
                board="kbench_dagster.reporting.board_language:textjob_pages",
                board_menu=(("Text jobs", "textjobs.html"),))
