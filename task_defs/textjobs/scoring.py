"""How a reply to a text job is scored, per family, and the canonical reply that scores full marks.

Every scorer is deterministic and reads the reply as data. Each job's README.md says in words what its scorer
does; this module is what runs. A change here changes the text jobs' fingerprint, so stored replies are regraded.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict, dataclass, field

from sandbox.judge.parse import Refused, bounded_json
from task_defs.textjobs.models import ActionsItem, ClassifyItem, FactsItem, FixItem, Item, Job, TableItem

QUOTES = "\"'`\u201c\u201d\u2018\u2019"
FACT_FIELDS = ("who", "what", "where", "when", "number")
_SPACE = re.compile(r"\s+")
_FENCE = re.compile(r"^```[^\n]*\n(.*?)\n?```$", re.S)


@dataclass(frozen=True)
class Score:
    """One reply's score. score is the share of the item right (fix: the edit-distance gain, -1..1); tp, n_pred
    and n_gold count cells or fields, so a job's precision and recall sum over items (micro)."""

    parse: str  # ok | invalid: the reply is not in the form asked for
    score: float
    passed: bool
    tp: int = 0
    n_pred: int = 0
    n_gold: int = 0
    expected: str | None = None  # classify: the right label
    predicted: str | None = None  # classify: the label replied (None when invalid)
    fields: dict[str, bool] = field(default_factory=dict)  # facts: which fields were right
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def _spaces(s: str) -> str:
    return _SPACE.sub(" ", s).strip()


def _norm(s) -> str:
    return _spaces(str(s)).casefold()


def unfence(reply: str) -> str:
    """The reply without surrounding blank space and one surrounding code fence."""
    s = reply.strip()
    m = _FENCE.match(s)
    return m.group(1).strip() if m else s


def _number(v) -> float | None:
    try:
        return float(str(v).strip())
    except ValueError:
        return None


def _canon(v) -> str:
    """A cell as compared: a number by its value ("12.50" is "12.5"), anything else trimmed and case-folded."""
    x = _number(v)
    return repr(x) if x is not None else _norm(v)


# --------------------------------------------------------------------------------------------- families

def score_classify(job: Job, item: ClassifyItem, reply: str) -> Score:
    s, before = reply.strip(), None
    while s != before:  # `"billing".` and `billing.` and "`billing`" all mean billing
        before = s
        s = s.strip().rstrip(".").strip(QUOTES)
    s = s.lower()
    if s not in (job.spec.labels or []):
        return Score("invalid", 0.0, False, expected=item.label, note=f"not one of the labels: {reply[:80]!r}")
    ok = s == item.label
    return Score("ok", float(ok), ok, expected=item.label, predicted=s,
                 note="" if ok else f"replied {s}, expected {item.label}")


def levenshtein(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def score_fix(job: Job, item: FixItem, reply: str) -> Score:
    s = unfence(reply)
    if len(s) >= 2 and s[0] in QUOTES and s[-1] in QUOTES:
        s = s[1:-1]
    s, want, given = _spaces(s), _spaces(item.fixed), _spaces(item.text)
    if not s:
        return Score("invalid", -1.0, False, note="empty reply")
    if s == want:
        return Score("ok", 1.0, True)
    base = levenshtein(given, want)
    gain = max(-1.0, min(1.0, (base - levenshtein(s, want)) / max(base, 1)))
    return Score("ok", round(gain, 4), False, note=f"edit-distance gain {gain:.2f}")


def _csv_rows(text: str) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(unfence(text))) if any(c.strip() for c in r)]


def score_table(job: Job, item: TableItem, reply: str) -> Score:
    n_gold = len(item.rows) * len(item.columns)
    try:
        rows = _csv_rows(reply)
    except csv.Error as exc:
        return Score("invalid", 0.0, False, n_gold=n_gold, note=f"not CSV: {exc}")
    if not rows or [_norm(c) for c in rows[0]] != [_norm(c) for c in item.columns]:
        return Score("invalid", 0.0, False, n_gold=n_gold,
                     note=f"the header is not {','.join(item.columns)}: {','.join(rows[0]) if rows else ''!r}"[:200])
    gold = {_canon(r[0]): r for r in item.rows}
    tp = n_pred = 0
    used: set[str] = set()
    for row in rows[1:]:
        n_pred += len(row)
        key = _canon(row[0])
        if key in gold and key not in used:
            used.add(key)
            tp += sum(_canon(a) == _canon(b) for a, b in zip(row, gold[key]))
    ok = tp == n_pred == n_gold
    return Score("ok", round(tp / n_gold, 4), ok, tp, n_pred, n_gold,
                 note="" if ok else f"{tp} of {n_gold} cells right, {n_pred} given")


def _json_of(text: str, open_: str, close: str):
    """The reply's JSON, read bounded (a reply nested past the judge's depth is no answer, so invalid)."""
    s = unfence(text)
    try:
        return bounded_json(s)
    except Refused:
        a, b = s.find(open_), s.rfind(close)
        if a < 0 or b <= a:
            return None
        try:
            return bounded_json(s[a:b + 1])
        except Refused:
            return None


def _due(v) -> str | None:
    return None if v is None or _norm(v) in ("", "null", "none") else _norm(v)


def score_actions(job: Job, item: ActionsItem, reply: str) -> Score:
    n_gold = 3 * len(item.actions)
    got = _json_of(reply, "[", "]")
    if not isinstance(got, list) or not all(isinstance(a, dict) and {"owner", "task", "due"} <= set(a)
                                            and isinstance(a["owner"], str) and isinstance(a["task"], str)
                                            for a in got):
        return Score("invalid", 0.0, False, n_gold=n_gold, note="not a JSON array of {owner, task, due}")
    free = list(got)
    tp = 0
    for want in item.actions:
        match = next((a for a in free if _norm(a["owner"]) == _norm(want.owner)), None)
        if match is None:
            continue
        free.remove(match)
        task = _norm(match["task"])
        tp += 1 + all(k in task for k in want.keywords) + (_due(match["due"]) == _due(want.due))
    n_pred = 3 * len(got)
    f1 = 2 * tp / (n_pred + n_gold)
    ok = tp == n_pred == n_gold
    return Score("ok", round(f1, 4), ok, tp, n_pred, n_gold,
                 note="" if ok else f"{tp} of {n_gold} fields right, {n_pred} given")


def _name(v) -> str:
    s = _norm(v).strip(".,;:")
    return s[4:] if s.startswith("the ") else s


def score_facts(job: Job, item: FactsItem, reply: str) -> Score:
    got = _json_of(reply, "{", "}")
    if not isinstance(got, dict) or not set(FACT_FIELDS) <= set(got):
        return Score("invalid", 0.0, False, n_gold=5, note="not a JSON object with who, what, where, when, number")
    want = item.facts
    right = {
        "who": _name(got["who"]) == _name(want.who),
        "what": all(k in _norm(got["what"]) for k in item.what_keywords),
        "where": _name(got["where"]) == _name(want.where),
        "when": _norm(got["when"]) == want.when,
        "number": _number(got["number"]) is not None and _number(got["number"]) == _number(want.number),
    }
    tp = sum(right.values())
    return Score("ok", tp / 5, tp == 5, tp, 5, 5, fields=right,
                 note="" if tp == 5 else "wrong: " + ", ".join(f for f, ok in right.items() if not ok))


SCORERS = {"classify": score_classify, "fix": score_fix, "table": score_table, "actions": score_actions,
           "facts": score_facts}


def score(job: Job, item: Item, reply: str) -> Score:
    return SCORERS[job.family](job, item, reply)


def gold_reply(job: Job, item: Item) -> str:
    """The reply the job asks for, filled with the answer: it scores full marks (a test checks every item)."""
    if isinstance(item, ClassifyItem):
        return item.label
    if isinstance(item, FixItem):
        return item.fixed
    if isinstance(item, TableItem):
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([item.columns, *item.rows])
        return out.getvalue()
    if isinstance(item, ActionsItem):
        return json.dumps([{"owner": a.owner, "task": a.task, "due": a.due} for a in item.actions])
    return json.dumps(item.facts.model_dump())
