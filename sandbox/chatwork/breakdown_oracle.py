"""What the scripted server knows of the breakdown jobs: every prompt of every way and wording, and its answers.

oracle answers every item right; noisy answers "unknown" on a fixed share of each job's items (chosen by a hash
of JOB.ITEM, the same share as the text jobs' noisy persona) and right elsewhere. For the agent way the reply is a
`write` of answers.json, then a final message."""

from __future__ import annotations

import hashlib
import json
import re

from sandbox.servers.scripted.personas import ORACLE_DONE, Conversation, Reply, tool_reply
from task_defs.breakdown.jobs import WORDINGS, BreakdownJob, load_breakdown_jobs
from task_defs.breakdown.prompts import ANSWERS_FILE, agent_prompt, batch_prompt, item_prompt

NOISY_SHARE = 0.25
_SPACE = re.compile(r"\s+")


def _key(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def noisy_breakdown_items(jobs: list[BreakdownJob], share: float = NOISY_SHARE) -> set[str]:
    out: set[str] = set()
    for job in jobs:
        ids = sorted((f"{job.id}.{it.id}" for it in job.items), key=lambda i: hashlib.sha256(i.encode()).hexdigest())
        out.update(ids[:round(share * len(ids))])
    return out


class BreakdownAnswers:
    """Prompt text -> (way, job, item or None); answers as the persona gives them."""

    def __init__(self, noisy: bool = False):
        self.jobs = load_breakdown_jobs()
        self.wrong = noisy_breakdown_items(self.jobs) if noisy else set()
        self._by_prompt: dict[str, tuple] = {}
        self._agent: list[tuple[str, BreakdownJob]] = []
        for job in self.jobs:
            for w in WORDINGS:
                self._by_prompt[_key(batch_prompt(job, w))] = ("prompt", job, None)
                self._agent.append((_key(agent_prompt(job, w)), job))
                for it in job.items:
                    self._by_prompt[_key(item_prompt(job, it, w))] = ("item", job, it)

    def answer(self, job: BreakdownJob, item) -> str:
        return "unknown" if f"{job.id}.{item.id}" in self.wrong else item.answer

    def all_answers(self, job: BreakdownJob) -> str:
        return json.dumps({it.id: self.answer(job, it) for it in job.items})

    def find(self, text: str) -> tuple | None:
        """(way, job, item) for a chat prompt; ("agent", job, None) when an agent's conversation holds a job's
        agent prompt (pi and the builtin agent wrap it in their own messages)."""
        k = _key(text)
        if k in self._by_prompt:
            return self._by_prompt[k]
        for prompt, job in self._agent:
            if prompt in k:
                return ("agent", job, None)
        return None

    @staticmethod
    def agent_write(job_answers: str) -> dict:
        return {"path": ANSWERS_FILE, "content": job_answers}


class BreakdownPersona:
    """Answers the breakdown jobs (suite "breakdown") in all three ways: oracle right everywhere, noisy wrong on a
    fixed share of the items (sandbox/chatwork/breakdown_oracle.py)."""

    def __init__(self, name: str):
        self.name = name
        self.answers = BreakdownAnswers(noisy=name == "noisy")

    def respond(self, conv: Conversation) -> Reply:
        found = None
        for text in [conv.first_user_text] + conv.texts("user")[1:]:
            found = self.answers.find(text)
            if found:
                break
        if found is None:
            return Reply("I cannot help with this: the request matches no breakdown job (scripted).",
                         note="no job matches the prompt")
        way, job, item = found
        if way == "item":
            return Reply(self.answers.answer(job, item), note=f"{job.id}.{item.id}")
        if way == "prompt":
            return Reply(self.answers.all_answers(job), note=f"{job.id}: every item")
        if conv.assistant_turns == 0:
            return tool_reply(0, "write", self.answers.agent_write(self.answers.all_answers(job)),
                              note=f"{job.id}: answers.json")
        return Reply(ORACLE_DONE, note=f"{job.id}: done")
