"""`kbench trials audit`: a read-only look at how varied each trial family is, for whoever authors the next edition.

Per family: the trials, their distinct titles, their distinct exact reference shapes (grading.answer_shape), the
grades (grading.work_grade) and the oracle kinds; authoring notes where the variety is low or no trial is hard;
and prompts that differ only in case, whitespace or sentence-ending punctuation within one family.

A trial's *title* is what an author would call the question: the first sentence of the prompt (the last user
message, up to its first sentence end, colon or line break) with its values masked - text in backticks or quotes,
numbers and times, e-mail addresses, paths and file names, and capitalised words past the first (names of people,
cities, products) - then case and spaces set aside. "Is it raining in Oslo right now?" and "Is it raining in Lima
right now?" share a title; generated trials have numbered ids (gen_select_0042), so ids say nothing of the question.

The duplicate key is stricter than the gate's loader.normalise where meaning could hide: text inside backticks is
kept exactly as written (shell syntax: `ls -R` is not `ls -r`), and a run of . ! ? counts as the end of a sentence
only after a letter, digit, quote or bracket and before a space or the end, so `cd ..`, `./build/.` and notes.txt
keep their dots. Outside backticks: case folded, runs of spaces made one, sentence ends removed.
Shape counts show repeated expected payloads, not identical reasoning; the notes are advisory.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from task_defs.trials.grading import answer_shape, work_grade
from task_defs.trials.loader import Family
from task_defs.trials.models import GRADES, Trial

# authoring notes: a family of at least MIN_TRIALS trials is flagged when distinct titles are under TITLE_SHARE of
# its trials, or distinct reference shapes under SHAPE_SHARE; any family with no hard trial is flagged
MIN_TRIALS = 10
TITLE_SHARE = 0.2
SHAPE_SHARE = 0.05

_BACKTICKS = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"(?<=[\w\"')\]])[.!?]+(?=\s|$)")
_FIRST_SENTENCE = re.compile(r"^.*?(?:[.!?:](?=\s|$)|\n|$)", re.S)
_MASKS = (
    (_BACKTICKS, "`…`"),
    (re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|(?<!\w)'[^'\n]+'(?!\w)"), "\"…\""),
    (re.compile(r"\S+@\S+"), "@…"),
    (re.compile(r"(?:~|\.{1,2})?/\S*|\b[\w-]+\.[A-Za-z]\w{0,9}\b"), "/…"),
    (re.compile(r"\d+(?:[.,:]\d+)*"), "#"),
    (re.compile(r"(?<=\s)[A-Z][\w'-]*"), "X"),
)


def prompt_of(trial: Trial) -> str:
    return trial.messages[-1].content


def title_of(trial: Trial) -> str:
    """The first sentence of the prompt with its values masked (see the module's notes)."""
    first = _FIRST_SENTENCE.match(prompt_of(trial).strip()).group(0)
    for pattern, mask in _MASKS:
        first = pattern.sub(mask, first)
    return re.sub(r"\s+", " ", first.casefold()).strip()


def duplicate_key(text: str) -> str:
    """Two prompts with one key differ only in case, whitespace or sentence-ending punctuation (outside backticks)."""
    parts, last = [], 0
    for m in _BACKTICKS.finditer(text):
        parts += [_loose(text[last:m.start()]), m.group(0)]
        last = m.end()
    parts.append(_loose(text[last:]))
    return "".join(parts).strip()


def _loose(text: str) -> str:
    return re.sub(r"\s+", " ", _SENTENCE_END.sub("", text).casefold())


def duplicates(families: list[Family]) -> list[dict]:
    """Groups of trials of one family whose prompts share a duplicate key, in suite order."""
    out = []
    for fam in families:
        groups: dict[str, list[Trial]] = defaultdict(list)
        for t in fam.trials:
            groups[duplicate_key(prompt_of(t))].append(t)
        out += [{"family": fam.id, "trials": [t.id for t in ts], "prompts": [prompt_of(t) for t in ts]}
                for ts in groups.values() if len(ts) > 1]
    return out


def family_coverage(fam: Family) -> dict:
    trials = fam.trials
    grades = Counter(work_grade(t) for t in trials)
    doc = {"trials": len(trials), "titles": len({title_of(t) for t in trials}),
           "shapes": len({answer_shape(t) for t in trials}), "grades": {g: grades.get(g, 0) for g in GRADES},
           "oracles": dict(sorted(Counter(t.oracle.kind for t in trials).items()))}
    notes = []
    if trials and len(trials) >= MIN_TRIALS and doc["titles"] < TITLE_SHARE * len(trials):
        notes.append(f"low title variety: {doc['titles']} titles for {len(trials)} trials "
                     f"(under {TITLE_SHARE:.0%})")
    if trials and len(trials) >= MIN_TRIALS and doc["shapes"] < SHAPE_SHARE * len(trials):
        notes.append(f"low shape variety: {doc['shapes']} reference shapes for {len(trials)} trials "
                     f"(under {SHAPE_SHARE:.0%})")
    if not grades.get("hard"):
        notes.append("no hard trials")
    doc["notes"] = notes
    return doc


def audit(families: list[Family]) -> dict:
    per = {fam.id: family_coverage(fam) for fam in families}
    return {"families": per, "duplicates": duplicates(families),
            "trials": sum(f["trials"] for f in per.values())}


def render_audit(doc: dict, where: str) -> str:
    head = (f"{'family':14} {'trials':>6} {'titles':>6} {'shapes':>6} {'easy':>5} {'medium':>6} {'hard':>5}  "
            f"oracle kinds")
    lines = [f"coverage of {where}", head]
    for fam, f in doc["families"].items():
        g = f["grades"]
        kinds = ", ".join(f"{k} {n}" for k, n in f["oracles"].items())
        lines.append(f"{fam:14} {f['trials']:6} {f['titles']:6} {f['shapes']:6} {g['easy']:5} {g['medium']:6} "
                     f"{g['hard']:5}  {kinds}")
    notes = [(fam, n) for fam, f in doc["families"].items() for n in f["notes"]]
    lines.append("authoring notes (advisory): " + ("none" if not notes else ""))
    lines += [f"  {fam}: {n}" for fam, n in notes]
    dups = doc["duplicates"]
    lines.append(f"prompts that differ only in case, whitespace or sentence-ending punctuation: "
                 f"{len(dups) or 'none'}")
    for d in dups:
        lines.append(f"  {d['family']}: {' / '.join(d['trials'])}")
        lines += [f"    {p[:100]!r}" for p in d["prompts"]]
    return "\n".join(lines)
