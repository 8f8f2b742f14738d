"""From templates to witnessed trials. A template makes drafts (a prompt, its oracle, the tools it needs); `build`
turns a family's quota of drafts into trials: it offers tools, refuses a prompt already asked, and witnesses each
trial before keeping it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import NO_CALL
from task_defs.trials.grading import Answer, grade, reference_answer
from task_defs.trials.loader import fit_problem, normalise
from task_defs.trials.models import Trial

TRIES = 120  # draws for one trial before its template counts as exhausted (too few values left to vary)


class GeneratorError(RuntimeError):
    """A template made a trial that fails its witness, or ran out of fresh prompts: a bug here, never data noise."""


@dataclass
class Draft:
    prompt: str
    oracle: dict
    needs: tuple[str, ...] = ()  # the tools a right answer calls
    avoid: tuple[str, ...] = ()  # tools that would serve as well: never offered as distractors
    system: str | None = None


@dataclass
class Template:
    """Makes drafts; `commit` is told when a draft became a trial (label tasks keep their answers balanced so)."""
    make: Callable[[Rng], Draft | None]
    name: str
    commit: Callable[[], None] = field(default=lambda: None)


def T(make: Callable[[Rng], Draft | None]) -> Template:
    return Template(make, make.__name__)


@dataclass
class Irrelevant:
    """A no-call template over a table of phrasings, each used at most twice in a run: a request no offered tool
    serves reads the same whatever name or date fills it, so a phrasing must not come back again and again."""
    name: str
    table: tuple
    values: Callable[[Rng], dict]
    used: dict = field(default_factory=dict)
    last: str = ""

    def make(self, rng: Rng) -> Draft | None:
        phrasings, avoid = rng.pick(self.table)
        phrasing = rng.pick(phrasings)
        if self.used.get(phrasing, 0) >= 2:
            return None
        self.last = phrasing
        return Draft(phrasing.format(**self.values(rng)), NO_CALL, (), avoid=avoid)

    def commit(self) -> None:
        self.used[self.last] = self.used.get(self.last, 0) + 1

    def template(self) -> Template:
        return Template(self.make, self.name, self.commit)


SYSTEMS = ("You are a helpful assistant.", "You are a concise personal assistant on the user's phone.",
           "You are an assistant with access to a few tools. Use them only when they fit.")


def _quotas(n: int, weighted: list[tuple[Template, float]]) -> list[tuple[Template, int]]:
    """n split over the templates by weight (largest remainders), so the family's mix does not drift with chance."""
    total = sum(w for _, w in weighted)
    shares = [n * w / total for _, w in weighted]
    counts = [int(s) for s in shares]
    for i in sorted(range(len(shares)), key=lambda i: (counts[i] - shares[i], i))[:n - sum(counts)]:
        counts[i] += 1
    return [(t, c) for (t, _), c in zip(weighted, counts)]


def _offer(rng: Rng, draft: Draft, names: list[str]) -> list[str]:
    needed = list(dict.fromkeys(draft.needs))
    pool = [t for t in names if t not in needed and t not in draft.avoid]
    # a call trial offers wrong tools beside the right ones, at least two beside a single right tool, and most offer
    # four tools or more: picking a tool by its position is worth about a quarter at most
    lo = 2 if not needed else 3 if len(needed) == 1 else len(needed) + 1
    hi = min(6, len(needed) + len(pool), 5 if not needed else 6)
    weights = {k: w for k, w in {2: 1, 3: 3, 4: 4, 5: 4, 6: 3}.items() if lo <= k <= hi}
    if not weights:
        raise GeneratorError(f"{draft.prompt[:60]!r}: too few tools left to offer {lo}")
    k = rng.weighted(weights)
    return rng.shuffled(needed + rng.sample(pool, k - len(needed)))


def witness(trial: Trial, family_tools: dict[str, dict]) -> None:
    """What the gate demands of every trial, proven here so a broken template fails loudly at generation."""
    problem = fit_problem(trial, family_tools)
    if problem:
        raise GeneratorError(f"{trial.id}: {problem[0]}: {problem[1]}")
    verdict = grade(trial, reference_answer(trial))
    if not verdict.passed:
        raise GeneratorError(f"{trial.id}: its reference answer fails ({verdict.cause}: {verdict.detail})")
    for what, answer in (("an empty reply", Answer()), ("a bare {}", Answer(text="{}"))):
        if grade(trial, answer).score != 0:
            raise GeneratorError(f"{trial.id}: {what} scores above 0")


def build(family: str, n: int, templates: list[tuple[Template, float]], rng: Rng, seen: dict[str, str],
           family_tools: dict[str, dict], offers_tools: bool) -> list[Trial]:
    names = list(family_tools)
    plan = rng.shuffled([t for t, k in _quotas(n, templates) for _ in range(k)])
    out: list[Trial] = []
    for template in plan:
        for _ in range(TRIES):
            draft = template.make(rng)
            if draft is not None and normalise(draft.prompt) not in seen:
                break
        else:
            raise GeneratorError(f"{family}: template {template.name} keeps drawing prompts already taken")
        raw: dict = {"id": f"gen_{family}_{len(out) + 1:04d}", "source": "generated"}
        if offers_tools:
            raw["tools"] = _offer(rng, draft, names)
        system = draft.system or (rng.pick(SYSTEMS) if offers_tools and rng.chance(0.06) else None)
        raw["messages"] = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": draft.prompt}]
        raw["oracle"] = draft.oracle
        trial = Trial.model_validate(raw)
        witness(trial, family_tools)
        seen[normalise(draft.prompt)] = trial.id
        template.commit()
        out.append(trial)
    return out
