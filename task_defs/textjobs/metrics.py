"""A job's figures from its items' scores: what `kbench textjobs` writes and the board shows.

Every job reports items, replies, passed (full marks), invalid (not in the form asked for) and its family's own
measures: classify accuracy and macro-F1 over the labels; fix exact matches and the mean edit-distance gain;
table cell precision and recall; actions field precision, recall and F1; facts the accuracy of each field. Sums
over items (micro) where the family counts cells or fields.
"""

from __future__ import annotations

from task_defs.textjobs.scoring import FACT_FIELDS


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def macro_f1(pairs: list[tuple[str, str | None]], labels: list[str]) -> float | None:
    """Mean F1 over the labels that occur among the expected or predicted ones (a label a slice never meets is not
    a free 1.0); (expected, predicted) pairs, predicted None for an invalid reply."""
    seen = [lab for lab in labels if any(lab in pair for pair in pairs)]
    if not seen:
        return None
    f1s = []
    for lab in seen:
        tp = sum(e == lab and p == lab for e, p in pairs)
        fp = sum(e != lab and p == lab for e, p in pairs)
        fn = sum(e == lab and p != lab for e, p in pairs)
        f1s.append(2 * tp / (2 * tp + fp + fn))
    return round(sum(f1s) / len(f1s), 4)


def job_figures(family: str, scores: list[dict], labels: list[str] | None = None) -> dict:
    """scores: Score.to_dict() of each reply of one job."""
    n = len(scores)
    out: dict = {"replies": n, "passed": sum(s["passed"] for s in scores),
                 "invalid": sum(s["parse"] == "invalid" for s in scores)}
    out["pass_rate"] = _ratio(out["passed"], n)
    tp, n_pred, n_gold = (sum(s[k] for s in scores) for k in ("tp", "n_pred", "n_gold"))
    if family == "classify":
        out["accuracy"] = out["pass_rate"]
        out["macro_f1"] = macro_f1([(s["expected"], s["predicted"]) for s in scores], labels or [])
    elif family == "fix":
        out["exact"] = out["pass_rate"]
        out["mean_gain"] = _ratio(sum(s["score"] for s in scores), n)
    elif family == "table":
        out["precision"], out["recall"] = _ratio(tp, n_pred), _ratio(tp, n_gold)
    elif family == "actions":
        out["precision"], out["recall"] = _ratio(tp, n_pred), _ratio(tp, n_gold)
        out["f1"] = _ratio(2 * tp, n_pred + n_gold)
    elif family == "facts":
        for f in FACT_FIELDS:
            out[f"{f}_accuracy"] = _ratio(sum(bool(s["fields"].get(f)) for s in scores), n)
        out["mean_score"] = _ratio(sum(s["score"] for s in scores), n)
    return out


HEADLINE = {"classify": "macro_f1", "fix": "mean_gain", "table": "recall", "actions": "f1", "facts": "mean_score"}
