"""The capability suite's design contract, checked for every item (CI runs it in `make test`):

- at least three checks, each of which can fail: every check fails on one of the item's plausible `wrong` replies
  (a check nothing fails measures nothing, and the empty reply fails most checks for free);
- the reference reply earns every check (judge items: their rubric has at least three criteria; a judge grades them);
- the `untouched` code or config (the state the prompt starts from) does not earn full marks, and debugging items
  have one: a diagnosis is proved by its fix;
- a diagnosis is never graded by keyword presence: debugging items are graded by running the fix (kbtest) or by a
  structured answer checked field by field (fields, structured), never by constraints;
- the answer is not in the prompt: neither the reference reply nor a number it must state appears there;
- no constraint regex nests repeats (it would backtrack exponentially over a crafted reply);
- the agent categories' task fixtures validate like any task (untouched fails, the reference passes) and have at
  least three checks;
- the suite's shape: at least 4 items in each of the 18 categories, at least 140 in all, about a third hard.
The canary in every file is the loader's rule (task_defs/capability/loader.py).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from sandbox.chatwork.capability import check_names, run_kbtest
from sandbox.isolation.bwrap import IsolationConfig
from task_defs.capability.checks import grade_text
from task_defs.capability.models import CATEGORIES, FieldCheck, Item, JudgeGrader, KbtestGrader
from task_defs.importers.models import CommandCheck, Fixture

MIN_PER_CATEGORY, MIN_ITEMS = 4, 140
# A repeated group whose one required piece is itself repeated ((a+)+, (\w+\s?)*): Python's re backtracks through
# it exponentially on a reply that almost matches, and a constraint runs over whatever the model wrote. A group
# with two required pieces ((?:\S+[ \t]+){8,}) has one way to split a run and is fine. A lint, not a proof.
GROUP = re.compile(r"\((?:\?:)?((?:[^()\\]|\\.)*)\)(?:[+*]|\{\d*,)")
ATOM = re.compile(r"(\\.|\[(?:\\.|[^\]])*\]|[^\\\[|])([*+?]|\{\d*(?:,\d*)?\})?")
HARD_SHARE = (0.25, 0.45)


@dataclass
class ItemAudit:
    id: str
    category: str
    problems: list[str] = field(default_factory=list)


def nests_repeats(pattern: str) -> bool:
    for m in GROUP.finditer(pattern):
        atoms = ATOM.findall(m.group(1))
        required = [q for _a, q in atoms if q in ("", "+") or re.fullmatch(r"\{[1-9]\d*(?:,\d*)?\}", q)]
        repeated = [q for _a, q in atoms if q in ("*", "+") or re.fullmatch(r"\{\d*,\d*\}", q)]
        if repeated and len(required) <= 1 and "|" not in m.group(1):
            return True
    return False


def _scores(item: Item, replies: list[str], work: Path, cfg: IsolationConfig | None) -> list[dict[str, bool]]:
    """For each reply, which checks it passes (by name)."""
    out = []
    for i, reply in enumerate(replies):
        if isinstance(item.grader, KbtestGrader):
            checks, outcome = run_kbtest(item, reply, work / f"r{i}", work / f"r{i}.txt", cfg, None)
            if outcome == "timeout" and i:  # a wrong reply "failing" a check by running out of time proves nothing
                checks = [replace(c, passed=True) for c in checks]
        else:
            checks = grade_text(item.grader, reply, raw=bool(item.tools))
        out.append({c.name: c.passed for c in checks})
    return out


def _numbers(item: Item) -> list[str]:
    g = item.grader
    if not hasattr(g, "checks") or isinstance(g, KbtestGrader):
        return []
    return [str(c.value) for c in g.checks if isinstance(c, FieldCheck) and c.op == "number"
            and isinstance(c.value, (int, float)) and abs(c.value) >= 10]


def audit_item(category: str, item: Item, work: Path, cfg: IsolationConfig | None = None) -> ItemAudit:
    a = ItemAudit(item.id, category)
    names = check_names(item)
    if len(names) < 3:
        a.problems.append(f"{len(names)} checks: at least three independently failing checks")
    prompt = "\n".join(item.prompts).casefold()
    ref = item.final_reference.strip()
    if len(ref) >= 8 and ref.casefold() in prompt:
        a.problems.append("the reference reply appears in the prompt")
    for n in _numbers(item):
        if re.search(rf"(?<![\d.]){re.escape(n.removesuffix('.0'))}(?![\d])", prompt):
            a.problems.append(f"the number {n} the answer must state appears in the prompt")
    for c in getattr(item.grader, "checks", []):
        pattern = getattr(c, "text", None) if getattr(c, "rule", "") in ("regex", "not_regex") else None
        if pattern and nests_repeats(pattern):
            a.problems.append(f"{c.name}: a repeated group holding a repeat ({pattern[:40]!r}) can take exponential "
                              "time on a crafted reply: rewrite it")
    if category == "debugging":
        if item.grader.kind not in ("kbtest", "fields", "structured"):
            a.problems.append("a diagnosis is graded by its fix or a structured answer, never by keywords")
        if item.untouched is None:
            a.problems.append("a debugging item gives the `untouched` code its fix must change")
    if isinstance(item.grader, JudgeGrader):
        return a  # a judge grades it; its rubric's size is the model's rule
    ref_pass, *others = _scores(item, [ref, *item.wrong] + ([item.untouched] if item.untouched else []), work, cfg)
    missed = [n for n, ok in ref_pass.items() if not ok]
    if missed:
        a.problems.append(f"the reference fails {', '.join(missed)}")
    # the empty reply would fail most checks for free (no field, no code to run), so it is not asked: a check
    # counts as failable only when one of the item's plausible wrong replies fails it
    failing = others[: len(item.wrong)]
    never = [n for n, _w in names if all(s.get(n, False) for s in failing)]
    if never:
        a.problems.append(f"no wrong reply fails {', '.join(never)}: every check must be failed by a plausible "
                          "wrong reply")
    if item.untouched is not None and all(others[-1].get(n, False) for n, _w in names):
        a.problems.append("the untouched code earns full marks")
    return a


def audit_task(fx: Fixture) -> list[str]:
    """Problems of an agent-category fixture beyond what `kbench validate` proves."""
    v = fx.verification
    if isinstance(v, CommandCheck):
        n = 1 + len(v.fail_to_pass) + len(v.pass_to_pass)
    else:
        n = len(re.findall(r"@kb\.case", v.test))
    return [] if n >= 3 else [f"{n} checks: at least three independently failing checks"]


def suite_problems(counts: dict[str, int], hard: int) -> list[str]:
    total = sum(counts.values())
    out = [f"{c}: {counts.get(c, 0)} items, at least {MIN_PER_CATEGORY}" for c in CATEGORIES
           if counts.get(c, 0) < MIN_PER_CATEGORY]
    if total < MIN_ITEMS:
        out.append(f"{total} items, at least {MIN_ITEMS}")
    if total and not HARD_SHARE[0] <= hard / total <= HARD_SHARE[1]:
        out.append(f"{hard} of {total} hard ({100 * hard / total:.0f}%): about a third")
    return out


def audit_suite(categories, work: Path, cfg: IsolationConfig | None = None,
                workers: int = 2) -> tuple[list[ItemAudit], list[str]]:
    """Every item's audit and the suite's shape problems (the agent tasks' own validation is `kbench validate`)."""
    jobs, audits, counts, hard = [], [], {}, 0
    for doc, _path in categories:
        for item in doc.items:
            jobs.append((doc.category, item))
            hard += item.tier == "hard"
        for fx in doc.tasks:
            audits.append(ItemAudit(fx.task_id, doc.category, audit_task(fx)))
            hard += "hard" in fx.tags
        counts[doc.category] = counts.get(doc.category, 0) + len(doc.items) + len(doc.tasks)
    with ThreadPoolExecutor(workers) as pool:
        audits += pool.map(lambda j: audit_item(j[0], j[1], work / j[1].id, cfg), jobs)
    return audits, suite_problems(counts, hard)

