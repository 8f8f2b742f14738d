"""`kbench trials import-bfcl`: BFCL's single-turn categories written as trial families
(task_defs/trials/bfcl_families.py), with per category the items converted, the items skipped and why, and how
often our oracle passes BFCL's own canonical answer; every item where the two cannot agree is listed with its
reason, and every trial dropped because an earlier one asks the same prompt with the id it repeats."""

from __future__ import annotations

from task_defs.trials.bfcl import CATEGORIES
from task_defs.trials.bfcl_families import write_families

LOOSER = {"float_for_integer_accepted": "a float like 5.0 for an integer parameter",
          "ints_in_float_list": "ints in a list of floats"}
STRICTER = {"case_exact_enum": "another member of an enum whose members BFCL's normalisation merges (Aa for AA)"}


def _pct(agree: int, total: int) -> str:
    return f"{agree}/{total} ({100 * agree / total:.1f}%)" if total else "0/0"


def agreement_lines(per_category: dict[str, dict]) -> list[str]:
    """The agreement per category and overall, every disagreement with its reason, the reasons counted with example
    ids, and where ours passes what BFCL's type check fails (not counted: a permissive difference by design)."""
    lines = [f"agreement {cat:18} {_pct(a['agree'], a['total'])}" for cat, a in per_category.items()]
    agree, total = sum(a["agree"] for a in per_category.values()), sum(a["total"] for a in per_category.values())
    lines.append(f"agreement {'overall':18} {_pct(agree, total)}")
    found = [d for a in per_category.values() for d in a["disagreements"]]
    lines.append(f"disagreements: {len(found)}")
    lines += [f"  {tid}: {reason}" for tid, reason in found]
    reasons: dict[str, list] = {}  # key -> [count, example ids]
    for a in per_category.values():
        for key, r in a["by_reason"].items():
            seen = reasons.setdefault(key, [0, []])
            seen[0] += r["count"]
            seen[1] += r["examples"]
    lines += [f"  reason {k}: {n} (e.g. {', '.join(ids[:3])})" for k, (n, ids) in sorted(reasons.items())]
    looser: dict[str, int] = {}
    for a in per_category.values():
        for k, n in a["looser"].items():
            looser[k] = looser.get(k, 0) + n
    if looser:
        lines.append("ours passes where BFCL's type check fails (not counted): " + ", ".join(
            f"{LOOSER.get(k, k)} in {n} items" for k, n in sorted(looser.items())))
    exact = [p for a in per_category.values() for p in a.get("case_exact", [])]
    lines.append(f"compared exactly, not with BFCL's normalisation (an enum it would merge): {len(exact)} argument(s)"
                 + "".join(f"\n  {p}" for p in exact))
    stricter: dict[str, int] = {}
    for a in per_category.values():
        for k, n in a.get("stricter", {}).items():
            stricter[k] = stricter.get(k, 0) + n
    if stricter:
        lines.append("ours fails where BFCL's normalisation passes (not counted): " + ", ".join(
            f"{STRICTER.get(k, k)} in {n} items" for k, n in sorted(stricter.items())))
    return lines


def dropped_lines(report: dict[str, dict]) -> list[str]:
    """The trials left out because an earlier one asks the same prompt, each with the id it repeats."""
    dropped = [d for r in report.values() for d in r.get("dropped", [])]
    return [f"repeated prompts dropped: {len(dropped)} (the first kept, in the order "
            f"{', '.join(CATEGORIES)}, then file order)"] + [f"  {tid}: repeats {first}" for tid, first in dropped]


def cmd_import_bfcl(args) -> int:
    categories = [c.strip() for c in args.categories.split(",") if c.strip()]
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    report = write_families(args.out, categories, args.limit)
    for r in report.values():
        skipped = ", ".join(f"{why} {n}" for why, n in sorted(r["skipped"].items())) or "none"
        print(f"{r['family']:24} {r['items']} items: {r['converted']} converted, {r['written']} written to "
              f"{r['folder']}; skipped: {skipped}; agreement {_pct(r['agreement']['agree'], r['agreement']['total'])}"
              f"; loader: {r['loader']}")
    for line in dropped_lines(report) + agreement_lines({cat: r["agreement"] for cat, r in report.items()}):
        print(line)
    return 0


def add_import_bfcl(tsub) -> None:
    s = tsub.add_parser("import-bfcl", help="BFCL's single-turn categories as trial families, with the agreement of "
                                           "our oracle with BFCL's answers (needs bfcl-eval installed)")
    s.add_argument("--out", default="imported/bfcl", help="folder for the families (default imported/bfcl)")
    s.add_argument("--categories", default=",".join(CATEGORIES),
                   help=f"comma-separated, of {', '.join(CATEGORIES)} (default: all)")
    s.add_argument("--limit", type=int, help="the first N items of each category")
    s.set_defaults(func=cmd_import_bfcl)
