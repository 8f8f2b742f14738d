"""The breakdown jobs as three kinds of work, one per way of asking, all through the one run loop:

- BreakdownAgent (way "agent"): the run's agent (pi or builtin) gets the job's items in a file in its sandboxed
  folder and must leave answers.json; a unit is a job.
- BreakdownBatch (way "prompt"): one chat request holding every item of a job; a unit is a job.
- BreakdownItems (way "item"): one chat request per item; a unit is JOB.ITEM.

Every verdict carries, per item, whether the answer was right (under "breakdown"), so the ways compare item by
item. A unit passes only when all of its items are right.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from sandbox.chatwork.breakdown_card import PREFIX
from sandbox.engine.chat import ChatSession
from sandbox.engine.kinds import Verdict
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.workdirs import fresh_dir
from sandbox.judge.parse import Refused, bounded_json
from task_defs.breakdown.answers import judge
from task_defs.breakdown.jobs import BreakdownItem, BreakdownJob, breakdown_fingerprint, load_breakdown_jobs
from task_defs.breakdown.prompts import ANSWERS_FILE, ITEMS_FILE, agent_prompt, batch_prompt, item_prompt, items_file

REPLY = "reply.txt"
MAX_ANSWERS_BYTES = 1 << 20
ANSWER_CHARS = 300  # what a verdict keeps of one item's answer (the record keeps the whole reply)
WAYS = ("agent", "prompt", "item")


def _object_in(text: str) -> dict | None:
    """The JSON object a reply holds: the whole reply, else from its first { to its last }; read bounded, so a
    reply nested past the judge's depth holds none."""
    s = text.strip()
    for cand in (s, s[s.find("{"):s.rfind("}") + 1] if "{" in s else ""):
        try:
            got = bounded_json(cand)
        except Refused:
            continue
        if isinstance(got, dict):
            return got
    return None


def judge_items(job: BreakdownJob, answers: dict | None) -> dict[str, dict]:
    """Per item: parse (ok | invalid | missing) and right, from an id -> answer mapping."""
    out = {}
    for it in job.items:
        if answers is None or it.id not in answers:
            out[it.id] = {"parse": "missing", "right": False, "answer": None}
        else:
            parse, right = judge(job.spec.answer, it.answer, answers[it.id])
            out[it.id] = {"parse": parse, "right": right, "answer": str(answers[it.id])[:ANSWER_CHARS]}
    return out


def _verdict(job: BreakdownJob, items: dict[str, dict], way: str, wording: str, note: str = "") -> Verdict:
    right = sum(v["right"] for v in items.values())
    detail = note or f"{right} of {len(items)} items right"
    return Verdict("pass" if right == len(items) else "wrong", detail, 0.0,
                   extra={"breakdown": {"job": job.id, "way": way, "wording": wording, "items": items}},
                   output=detail + "\n" + "".join(f"{i}: {'right' if v['right'] else v['parse']}\n"
                                                  for i, v in items.items()))


def read_agent_file(path: Path, limit: int = MAX_ANSWERS_BYTES) -> str | None:
    """A file the agent left, read as data: never through a link, never a FIFO or device, at most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit + 1)[:limit].decode("utf-8", errors="replace")
    finally:
        os.close(fd)


class _Jobs:
    """What the three kinds share: the jobs, the wording, unit lookup and the fields the store groups by."""

    way = ""

    def __init__(self, wording: str = "tested", jobs: list[BreakdownJob] | None = None):
        self.jobs = jobs if jobs is not None else load_breakdown_jobs()
        self.wording = wording
        self.name = f"{PREFIX}{self.way}-{wording}"
        self.fingerprint = breakdown_fingerprint(self.jobs, self.way, wording)

    @property
    def units(self) -> list:
        return list(self.jobs)

    def get(self, unit_id: str):
        for u in self.units:
            if u.id == unit_id:
                return u
        raise KeyError(f"no breakdown unit {unit_id!r}; the jobs are {', '.join(j.id for j in self.jobs)}")

    def unit_fields(self, unit) -> dict:
        return {"category": self.way, "tier": self.wording}

    def missing(self, unit) -> list[str]:
        return []

    def timeout_s(self, unit, run_timeout_s: float) -> float:
        return run_timeout_s


class BreakdownAgent(_Jobs):
    way = "agent"
    runs_agent = True

    def prepare(self, unit: BreakdownJob, workdir: Path, cfg: IsolationConfig) -> None:
        fresh_dir(workdir)
        (workdir / ITEMS_FILE).write_text(items_file(unit), encoding="utf-8")

    def prompts(self, unit: BreakdownJob) -> list[str]:
        return [agent_prompt(unit, self.wording)]

    def session_isolation(self, unit, cfg: IsolationConfig) -> IsolationConfig:
        return cfg

    def grade(self, unit: BreakdownJob, workdir: Path, output_path: Path, cfg: IsolationConfig,
              log_path: Path | None) -> Verdict:
        text = read_agent_file(workdir / ANSWERS_FILE)
        if text is None:
            output_path.write_text(f"nofile: {ANSWERS_FILE} is not a file the agent left\n", encoding="utf-8")
            return Verdict("nofile", f"{ANSWERS_FILE} does not exist (or is not a regular file)", 0.0,
                           extra={"breakdown": {"job": unit.id, "way": self.way, "wording": self.wording,
                                                "items": judge_items(unit, None)}})
        answers = _object_in(text)
        v = _verdict(unit, judge_items(unit, answers), self.way, self.wording,
                     "" if answers is not None else f"{ANSWERS_FILE} is not a JSON object")
        output_path.write_text(v.output, encoding="utf-8")
        return v


class BreakdownBatch(_Jobs):
    way = "prompt"
    runs_agent = False

    def execute(self, unit: BreakdownJob, chat: ChatSession, kept: dict[str, str]) -> None:
        kept[REPLY] = chat.ask([{"role": "user", "content": batch_prompt(unit, self.wording)}]).content

    def grade_kept(self, unit: BreakdownJob, kept: dict[str, str], scratch: Path, cfg: IsolationConfig,
                   log_path: Path | None) -> Verdict:
        answers = _object_in(kept.get(REPLY) or "")
        return _verdict(unit, judge_items(unit, answers), self.way, self.wording,
                        "" if answers is not None else "the reply is not a JSON object")


@dataclass(frozen=True)
class BreakdownUnit:
    job: BreakdownJob
    item: BreakdownItem

    @property
    def id(self) -> str:
        return f"{self.job.id}.{self.item.id}"


class BreakdownItems(_Jobs):
    way = "item"
    runs_agent = False

    @property
    def units(self) -> list[BreakdownUnit]:
        return [BreakdownUnit(j, i) for j in self.jobs for i in j.items]

    def prompts(self, unit: BreakdownUnit) -> list[str]:
        return [item_prompt(unit.job, unit.item, self.wording)]

    def execute(self, unit: BreakdownUnit, chat: ChatSession, kept: dict[str, str]) -> None:
        kept[REPLY] = chat.ask([{"role": "user", "content": self.prompts(unit)[0]}]).content

    def grade_kept(self, unit: BreakdownUnit, kept: dict[str, str], scratch: Path, cfg: IsolationConfig,
                   log_path: Path | None) -> Verdict:
        text = kept.get(REPLY)
        parse, right = judge(unit.job.spec.answer, unit.item.answer, text)
        single = BreakdownJob(id=unit.job.id, folder=unit.job.folder, spec=unit.job.spec, items=(unit.item,))
        return _verdict(single, {unit.item.id: {"parse": parse, "right": right,
                                                "answer": None if text is None else text[:ANSWER_CHARS]}},
                        self.way, self.wording)


KINDS = {"agent": BreakdownAgent, "prompt": BreakdownBatch, "item": BreakdownItems}


def breakdown_kind(name: str, jobs: list[BreakdownJob] | None = None):
    """The kind a stored run's manifest names (breakdown-WAY-WORDING)."""
    way, _, wording = name.removeprefix(PREFIX).partition("-")
    if way not in KINDS or wording not in ("tested", "first"):
        raise ValueError(f"{name!r} is not a breakdown kind (breakdown-WAY-WORDING)")
    return KINDS[way](wording, jobs)
