"""BFCL's categories written as trial family folders (job.toml, items.jsonl) that our loader reads, each with a
report: how many items converted and were written, why the others were skipped, the oracle's agreement with BFCL
and what the loader says of the folder.

BFCL asks some questions in more than one category (a simple item again among the multiple ones, an irrelevance
item twice), and our gate refuses a suite where a prompt repeats. An import keeps the first trial of each prompt
(our gate's normalised_prompt) in the order of CATEGORIES (simple, multiple, parallel, parallel_multiple,
irrelevance), then file order, whatever order the categories were asked in, and drops the rest, naming each dropped
id with the id it repeats. The agreement is still measured over every converted item.
"""

from __future__ import annotations

import json
from pathlib import Path

from task_defs.canary import CANARY
from task_defs.itemfiles import ITEMS_FILE, SPEC_FILE
from task_defs.trials.bfcl import CATEGORIES, canonical_category, convert_items, load_bfcl
from task_defs.trials.bfcl_agreement import agreement
from task_defs.trials.loader import fit_problem, load_family, normalised_prompt

ABOUT = {
    "simple": "BFCL simple (Python): one function offered, one call to it with the right arguments.",
    "multiple": "BFCL multiple: several functions offered, one call to the right one with the right arguments.",
    "parallel": "BFCL parallel: one function offered, called several times at once with different arguments.",
    "parallel_multiple": "BFCL parallel multiple: several functions offered, several calls at once, in any order.",
    "irrelevance": "BFCL irrelevance: no offered function fits the request; any call fails.",
}


REPEATED = "repeats the prompt of an earlier trial (dropped)"


def _first_of_each_prompt(trials: list, taken: dict[str, str]) -> tuple[list, list[tuple[str, str]]]:
    """(the trials whose prompt nobody took before, [(dropped id, the id it repeats)]); `taken` gains the kept."""
    kept, dropped = [], []
    for t in trials:
        key = normalised_prompt(t)
        if key in taken:
            dropped.append((t.id, taken[key]))
        else:
            taken[key] = t.id
            kept.append(t)
    return kept, dropped


def write_family(out_dir: Path | str, category: str, items: list[dict], taken: dict[str, str] | None = None) -> dict:
    """The family folder bfcl_<category> (job.toml, items.jsonl) holding the items' trials our loader accepts, less
    those whose prompt an earlier one asks; the counts, the skip reasons, the dropped repeats, the agreement and what
    our loader says of the folder. `taken`: normalised prompt -> the trial id kept for it, shared by the categories
    of one import (and filled here); without it the repeats are looked for within this category alone."""
    from task_defs.errors import TaskFileError

    cat = canonical_category(category)
    trials, skipped = convert_items(cat, items)
    fit = [t for t in trials if fit_problem(t, {}) is None]
    if len(fit) < len(trials):
        skipped["fails our loader's fit check (listed as a disagreement)"] = len(trials) - len(fit)
    fit, dropped = _first_of_each_prompt(fit, {} if taken is None else taken)
    if dropped:
        skipped[REPEATED] = len(dropped)
    folder, loader = Path(out_dir) / f"bfcl_{cat}", "no trials to write"
    if fit:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / SPEC_FILE).write_text(f"# {CANARY}\nfamily = {json.dumps(folder.name)}\n"
                                        f"about = {json.dumps(ABOUT[cat])}\n", encoding="utf-8")
        (folder / ITEMS_FILE).write_text("".join(
            json.dumps(t.model_dump(mode="json", exclude_unset=True), ensure_ascii=False) + "\n" for t in fit),
            encoding="utf-8")
        try:
            loader = f"ok, {len(load_family(folder).trials)} trials"
        except TaskFileError as exc:
            loader = f"refused: {exc}"
    return {"family": folder.name, "folder": str(folder), "items": len(items), "converted": len(trials),
            "written": len(fit), "skipped": skipped, "dropped": dropped, "agreement": agreement(trials, items),
            "loader": loader}


def write_families(out_dir: Path | str, categories=CATEGORIES, limit: int | None = None) -> dict:
    """write_family for each category, from the installed package's data, in the order of CATEGORIES and with
    one record of the prompts taken, so no prompt is written twice: category -> its report."""
    taken: dict[str, str] = {}
    asked = {canonical_category(c) for c in categories}
    return {cat: write_family(out_dir, cat, load_bfcl(cat, limit), taken) for cat in CATEGORIES if cat in asked}
