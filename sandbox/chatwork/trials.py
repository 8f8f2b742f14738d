"""The tool-use trials as a kind of work: each trial is one attempt, one chat request with its tools offered.

`request_of` is the one place a trial becomes what the model receives (messages and tools, the tools in an order
shuffled by the trial and the attempt's seed, so a model that always takes the first tool offered scores only the
chance floor). The reply is kept as the server sent it (reply.json: the text and the calls with their arguments as
raw text), and grading reads it back, so a regrade after an oracle change never asks again.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from sandbox.agents.textcalls import parse_text_calls
from sandbox.engine.chat import ChatSession
from sandbox.engine.kinds import Verdict
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.workdirs import fresh_dir
from task_defs.trials.grading import Answer, Call, grade, work_grade
from task_defs.trials.loader import Family, fingerprint, load_families, tools_of
from task_defs.trials.models import Trial

NAME = "trials"
REPLY = "reply.json"
TIMEOUT_S = 120.0  # one reply; a safety stop, its outcome is timeout, never wrong
# Said once for every trial that offers tools: when to call, and that words are an answer too. It never hints
# which tool, nor whether one fits.
TOOLS_SYSTEM = ("You can call the tools offered with this request. Call the ones the request needs, with the values "
                "it gives; when no offered tool fits, answer in words and call nothing.")


@dataclass(frozen=True)
class TrialUnit:
    family: Family
    trial: Trial

    @property
    def id(self) -> str:
        return self.trial.id


def request_of(unit: TrialUnit, seed: int) -> tuple[list[dict], list[dict]]:
    """(messages, tools) exactly as sent for attempt `seed` of the trial."""
    names = list(unit.trial.tools)
    random.Random(f"{unit.trial.id}:{seed}").shuffle(names)
    specs = tools_of(unit.trial, unit.family.spec.tools)
    tools = [{"type": "function", "function": {"name": n, **specs[n]}} for n in names]
    messages = [m.model_dump() for m in unit.trial.messages]
    if tools and messages[0]["role"] != "system":
        messages.insert(0, {"role": "system", "content": TOOLS_SYSTEM})
    return messages, tools


def answer_of(reply: dict, offered: list[str]) -> Answer:
    """The model's answer from the kept reply: native calls, else calls of offered tools written in the text
    (recorded as such; JSON in the text that names no offered tool is an answer, not a call)."""
    calls = []
    for c in reply.get("tool_calls") or []:
        try:
            args = json.loads(c.get("arguments") or "{}")
        except ValueError:
            args = None
        calls.append(Call(c.get("name") or "", args if isinstance(args, dict) else None, "native"))
    text = reply.get("content") or ""
    if not calls:
        calls = [Call(t.name, t.arguments if t.error is None else None, "text") for t in parse_text_calls(text)
                 if t.name in offered]
    return Answer(text=text, calls=tuple(calls))


def select_trials(kind: ToolTrials, only: str | None = None, limit: int | None = None) -> list[TrialUnit]:
    """The trials of the families named in `only` (all when None), the first `limit` of each."""
    names = [n.strip() for n in (only or "").split(",") if n.strip()]
    known = [f.id for f in kind.families]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"--only: unknown family {', '.join(unknown)}; the families are {', '.join(known)}")
    if limit is not None and limit < 1:
        raise ValueError("--limit must be a positive number of trials per family")
    return [u for f in kind.families if not names or f.id in names
            for u in [x for x in kind.units if x.family.id == f.id][:limit]]


class ToolTrials:
    name = NAME
    runs_agent = False

    def __init__(self, families: list[Family] | None = None):
        self.families = families if families is not None else load_families()
        self.fingerprint = fingerprint(self.families)
        self._units = [TrialUnit(f, t) for f in self.families for t in f.trials]
        self._by_id = {u.id: u for u in self._units}

    @property
    def units(self) -> list[TrialUnit]:
        return list(self._units)

    def get(self, unit_id: str) -> TrialUnit:
        if unit_id not in self._by_id:
            raise KeyError(f"no trial {unit_id!r}; the families are {', '.join(f.id for f in self.families)} "
                           f"(e.g. {self._units[0].id})")
        return self._by_id[unit_id]

    def unit_fields(self, unit: TrialUnit) -> dict:
        return {"category": unit.family.id, "tier": work_grade(unit.trial)}

    def missing(self, unit: TrialUnit) -> list[str]:
        return []

    def prepare(self, unit: TrialUnit, workdir: Path, cfg: IsolationConfig) -> None:
        fresh_dir(workdir)

    def prompts(self, unit: TrialUnit) -> list[str]:
        return [unit.trial.messages[-1].content]

    def session_isolation(self, cfg: IsolationConfig) -> IsolationConfig:
        return cfg

    def timeout_s(self, unit: TrialUnit, run_timeout_s: float) -> float:
        return min(run_timeout_s, TIMEOUT_S)

    def execute(self, unit: TrialUnit, workdir: Path, chat: ChatSession) -> None:
        messages, tools = request_of(unit, chat.attempt)
        reply = chat.ask(messages, tools=tools or None)
        (workdir / REPLY).write_text(json.dumps({"content": reply.content, "tool_calls": reply.tool_calls,
                                                 "finish": reply.finish, "error": reply.error}), encoding="utf-8")

    def grade(self, unit: TrialUnit, workdir: Path, output_path: Path, cfg: IsolationConfig,
              log_path: Path | None) -> Verdict:
        path = workdir / REPLY
        if not path.is_file():
            return Verdict("nofile", "no reply was kept", 0.0)
        try:
            reply = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except ValueError:
            return Verdict("nofile", "the kept reply is not readable", 0.0)
        answer = answer_of(reply, unit.trial.tools)
        v = grade(unit.trial, answer)
        output_path.write_text(f"{unit.id}: {'pass' if v.passed else 'fail'} (score {v.score:.3f}) "
                               f"{v.cause or ''} {v.detail}\n", encoding="utf-8")
        return Verdict("pass" if v.passed else "wrong", v.detail or v.cause or "", 0.0, extra={"trial": {
            "family": unit.family.id, "grade": work_grade(unit.trial), "oracle": unit.trial.oracle.kind,
            "score": v.score, "cause": v.cause, "forms": sorted({c.form for c in answer.calls})}})
