"""How far our trial oracle agrees with BFCL's own answers: every item of BFCL's five single-turn categories
converted (task_defs/trials/bfcl.py) and BFCL's canonical answer graded by our oracle (bfcl_agreement.py);
prints the agreement per category and overall, and every disagreement with its reason. Needs bfcl-eval
(pip install --no-deps bfcl-eval==2026.3.23); writes nothing.

    .venv/bin/python bench/bfcl_agreement.py [--categories simple,parallel] [--limit N]
"""

import argparse
import time

from kbench_dagster.commands.trials_bfcl import agreement_lines
from task_defs.trials.bfcl import CATEGORIES, canonical_category, convert_items, load_bfcl
from task_defs.trials.bfcl_agreement import agreement


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    ap.add_argument("--limit", type=int, help="the first N items of each category")
    args = ap.parse_args()
    start, per_category = time.perf_counter(), {}
    for cat in (canonical_category(c.strip()) for c in args.categories.split(",") if c.strip()):
        items = load_bfcl(cat, args.limit)
        trials, skipped = convert_items(cat, items)
        per_category[cat] = agreement(trials, items)
        if skipped:
            print(f"{cat}: skipped " + ", ".join(f"{why} {n}" for why, n in sorted(skipped.items())))
    for line in agreement_lines(per_category):
        print(line)
    print(f"{sum(a['total'] for a in per_category.values())} trials read, converted and checked in "
          f"{time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
