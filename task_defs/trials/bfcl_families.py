"""BFCL's categories written as trial family folders (job.toml, items.jsonl) that our loader reads, each with a
report: how many items converted and were written, why the others were skipped, the oracle's agreement with BFCL
and what the loader says of the folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from task_defs.canary import CANARY
from task_defs.itemfiles import ITEMS_FILE, SPEC_FILE
from task_defs.trials.bfcl import CATEGORIES, canonical_category, convert_items, load_bfcl
from task_defs.trials.bfcl_agreement import agreement
from task_defs.trials.loader import fit_problem, load_family

ABOUT = {
    "simple": "BFCL simple (Python): one function offered, one call to it with the right arguments.",
    "multiple": "BFCL multiple: several functions offered, one call to the right one with the right arguments.",
    "parallel": "BFCL parallel: one function offered, called several times at once with different arguments.",
    "parallel_multiple": "BFCL parallel multiple: several functions offered, several calls at once, in any order.",
    "irrelevance": "BFCL irrelevance: no offered function fits the request; any call fails.",
}


def write_family(out_dir: Path | str, category: str, items: list[dict]) -> dict:
    """The family folder bfcl_<category> (job.toml, items.jsonl) holding the items' trials our loader accepts; the
    counts, the skip reasons, the agreement and what our loader says of the folder."""
    from task_defs.errors import TaskFileError

    cat = canonical_category(category)
    trials, skipped = convert_items(cat, items)
    fit = [t for t in trials if fit_problem(t, {}) is None]
    if len(fit) < len(trials):
        skipped["fails our loader's fit check (listed as a disagreement)"] = len(trials) - len(fit)
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
            "written": len(fit), "skipped": skipped, "agreement": agreement(trials, items), "loader": loader}


def write_families(out_dir: Path | str, categories=CATEGORIES, limit: int | None = None) -> dict:
    """write_family for each category, from the installed package's data: category -> its report."""
    return {cat: write_family(out_dir, cat, load_bfcl(cat, limit))
            for cat in dict.fromkeys(canonical_category(c) for c in categories)}
