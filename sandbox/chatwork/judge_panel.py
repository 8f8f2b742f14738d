"""A panel of LLM judges (klbench's): one or more judges, each on its own endpoint, share an item's votes.

Vote v of an item goes to member (start + v - 1) mod n, where the start is drawn from the item's id, so across
items every member casts about as many votes as the others and a regrade asks the same member the same vote. A
member whose server does not answer (judge.Unreachable) hands that vote to the next member: the record says which
member was asked, which one cast it and that it fell back. A member that answers but never in the asked form, or
refuses the request, does not: the reply it was shown may be what derailed it, and a reply must not choose its
judge by derailing the strict one. The item is then `judge_failed`, as when every member is unreachable.

Each member's model family is recorded, so a judge of the same family as the model it judges can be flagged where
the score is shown (`same_family`).

A panel of one member is the plain judge: its votes are the judge's own, as sandbox/chatwork/judge.py describes."""

from __future__ import annotations

import hashlib
import re

from sandbox.chatwork.judge import VOTES, Judge, JudgeFailed, Unreachable, majority
from task_defs.capability.checks import CheckResult
from task_defs.capability.models import Item, JudgeGrader

# Which maker a model id belongs to, by a fragment of its name: a judge shares a "family" with the model it judges
# when the same maker trained both (a model tends to favour its own maker's style). First match wins, so the longer
# or more specific fragments come first.
FAMILY_FRAGMENTS: tuple[tuple[str, str], ...] = (
    ("gpt-oss", "openai"), ("gpt", "openai"), ("o1-", "openai"), ("o3", "openai"), ("o4-", "openai"),
    ("codex", "openai"), ("claude", "anthropic"), ("gemini", "google"), ("gemma", "google"),
    ("qwen", "alibaba"), ("qwq", "alibaba"), ("llama", "meta"), ("mixtral", "mistral"), ("mistral", "mistral"),
    ("codestral", "mistral"), ("devstral", "mistral"), ("magistral", "mistral"), ("ministral", "mistral"),
    ("phi", "microsoft"), ("deepseek", "deepseek"), ("granite", "ibm"), ("smollm", "huggingface"),
    ("glm", "zhipu"), ("kimi", "moonshot"), ("minimax", "minimax"), ("nemotron", "nvidia"), ("olmo", "ai2"),
    ("command", "cohere"), ("falcon", "tii"), ("internlm", "shanghai-ai-lab"), ("exaone", "lg"), ("yi-", "01-ai"),
)


def model_family(model: str) -> str | None:
    """The maker of a model, from its id (a path, a repository or a file name); None where the id does not say."""
    name = model.rsplit("/", 1)[-1].lower()
    for fragment, family in FAMILY_FRAGMENTS:
        if re.search(r"(?<![a-z])" + re.escape(fragment), name):
            return family
    return None


def parse_judge(spec: str, families: dict[str, str] | None = None) -> tuple[str, str, str | None]:
    """`MODEL@URL` -> (model, url, family). The family is the one `families` gives the model, else the id's."""
    model, sep, url = spec.partition("@")
    if not sep or not model or not url.startswith(("http://", "https://")):
        raise ValueError(f"a judge is MODEL@URL (the model id, then its OpenAI-compatible endpoint): {spec!r}")
    return model, url, (families or {}).get(model) or model_family(model)


def parse_families(specs: list[str] | None) -> dict[str, str]:
    """`MODEL=FAMILY` options -> {model: family}."""
    out = {}
    for spec in specs or []:
        model, sep, family = spec.partition("=")
        if not sep or not model or not family:
            raise ValueError(f"a judge's family is given as MODEL=FAMILY: {spec!r}")
        out[model] = family.strip().lower()
    return out


class JudgePanel:
    def __init__(self, members: list[Judge], families: list[str | None] | None = None):
        if not members:
            raise ValueError("a judge panel needs one judge at least")
        self.members = members
        self.families = families or [model_family(j.model) for j in members]
        self.votes = VOTES
        self.model = " + ".join(j.model for j in members)  # what a run prints as its judge
        self.fingerprint = hashlib.sha256("\0".join(j.fingerprint for j in members).encode()).hexdigest()[:16]

    @classmethod
    def from_specs(cls, specs: list[str], families: list[str] | None = None,
                   api_key: str | None = None) -> JudgePanel | None:
        """The panel the `--judge MODEL@URL` options name (None for none), `--judge-family MODEL=FAMILY` applied."""
        if not specs:
            return None
        given = parse_families(families)
        parsed = [parse_judge(s, given) for s in specs]
        unused = sorted(set(given) - {m for m, _, _ in parsed})
        if unused:
            raise ValueError(f"--judge-family names no judge of the panel: {', '.join(unused)}")
        return cls([Judge(url, model, api_key=api_key) for model, url, _ in parsed],
                   [family for _, _, family in parsed])

    def describe(self) -> list[dict]:
        # no endpoint address: records and manifests never carry host names
        return [{"model": j.model, "family": f, "fingerprint": j.fingerprint}
                for j, f in zip(self.members, self.families)]

    def same_family(self, model: str) -> list[str]:
        """The panel's judges of the same maker as `model` (their model ids); empty where none is, or unknown."""
        family = model_family(model)
        return [j.model for j, f in zip(self.members, self.families) if family and f == family]

    def assigned(self, item_id: str, vote: int) -> int:
        start = int(hashlib.sha256(item_id.encode()).hexdigest()[:8], 16) % len(self.members)
        return (start + vote - 1) % len(self.members)

    def cast(self, item: Item, replies: list[str], vote: int) -> tuple[dict, dict]:
        """One vote, by its member or, where that one's server does not answer, by the next that does: (the vote,
        its record). Raises JudgeFailed when a member answers out of form, or none is reachable."""
        first = self.assigned(item.id, vote)
        failures = []
        for step in range(len(self.members)):
            m = (first + step) % len(self.members)
            try:
                said, order, text, tries = self.members[m].vote(item, replies, vote)
            except Unreachable as exc:
                failures.append(f"{self.members[m].model}: {exc}")
                continue
            except JudgeFailed as exc:
                raise JudgeFailed("; ".join([*failures, f"{self.members[m].model}: {exc}"])) from exc
            return said, {"vote": vote, "member": m, "assigned": first, "fallback": m != first,
                          "failed": failures, "order": order, "yes": [i for i in range(len(order)) if said[i]],
                          "reply": text[:2000], "tries": tries}
        raise JudgeFailed("; ".join(failures))

    def grade(self, item: Item, replies: list[str]) -> tuple[list[CheckResult], dict]:
        """The rubric's checks (the per-criterion median of the votes) and the record of every vote, the panel with
        each member's family, and how many votes fell back. Raises JudgeFailed when a vote found no member."""
        g = item.grader
        assert isinstance(g, JudgeGrader)
        votes, record = [], []
        for vote in range(1, self.votes + 1):
            said, rec = self.cast(item, replies, vote)
            votes.append(said)
            record.append(rec)
        met = majority(votes, len(g.criteria))
        checks = [CheckResult(f"criterion_{i + 1}", 1.0, ok, "" if ok else g.criteria[i][:80])
                  for i, ok in enumerate(met)]
        return checks, {"model": self.model, "fingerprint": self.fingerprint, "panel": self.describe(),
                        "votes": record, "fallbacks": sum(r["fallback"] for r in record), "median": met}
