"""What the scripted server knows of the text jobs: the item a request asks about and its right reply.

The oracle persona replies with the answer key (every job at 100%); the noisy persona with a reply that is not in
the form asked for on a fixed share of each job's items, chosen by a hash of the item id (so the same items every
run, and the expected pass rate is exact), and the answer key on the rest."""

from __future__ import annotations

import hashlib
import re

from sandbox.chatwork.textjobs import TextItem, TextJobs
from sandbox.servers.scripted.personas import Conversation, Reply
from task_defs.textjobs.scoring import gold_reply

NOISY_SHARE = 0.25
NOISY_REPLY = "I am not sure about this one."
_SPACE = re.compile(r"\s+")


def _key(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def noisy_items(kind: TextJobs, share: float = NOISY_SHARE) -> set[str]:
    """The unit ids the noisy persona gets wrong: round(share x n) of each job's n items (of those in `kind`)."""
    out: set[str] = set()
    for job in kind.jobs:
        ids = sorted((u.id for u in kind.units if u.job.id == job.id),
                     key=lambda i: hashlib.sha256(i.encode()).hexdigest())
        out.update(ids[:round(share * len(ids))])
    return out


class TextJobAnswers:
    def __init__(self, kind: TextJobs | None = None):
        self.kind = kind or TextJobs()
        self._by_prompt: dict[str, TextItem] = {_key(u.prompt): u for u in self.kind.units}

    def find(self, text: str) -> TextItem | None:
        return self._by_prompt.get(_key(text))

    def right(self, unit: TextItem) -> str:
        return gold_reply(unit.job, unit.item)


class TextJobPersona:
    """Answers the text jobs (suite "textjobs"): oracle with the answer key; noisy with a reply that is not in the
    asked form on a fixed share of each job's items (sandbox/chatwork/oracle.py), the key elsewhere."""

    def __init__(self, name: str):
        self.name = name
        self.answers = TextJobAnswers()
        self.wrong = noisy_items(self.answers.kind) if name == "noisy" else set()

    def respond(self, conv: Conversation) -> Reply:
        unit = self.answers.find(conv.first_user_text)
        if unit is None:
            return Reply("I cannot help with this: the request matches no text job item (scripted).",
                         note="no item matches the prompt")
        if unit.id in self.wrong:
            return Reply(NOISY_REPLY, note=f"{unit.id}: the noisy share")
        return Reply(self.answers.right(unit), note=f"{unit.id}: the answer key")
