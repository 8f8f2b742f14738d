"""klbench's ranking rules for the capability boards (Thinks and Ships), apart from the pages that show them.

- Which figure ranks a row: usability on CPU and entry-GPU hardware (every item counts, a timeout or a refusal as
  0: what a user of such a machine gets), the composite elsewhere. Rows ranked by different figures are ranked in
  groups of their own, never against each other.
- Eras: a row's era is the suite version its results were made under (the suite's fingerprint). Rows of different
  eras are ranked in groups of their own, never together; a row whose results span eras is an era of its own.
- Shared ranks (Ships): a row shares the rank number of the row above it when the paired gap between them, over the
  tasks both counted, is below the minimum detectable effect of that comparison at power 0.80 (two-sided 5%):
  (z_0.975 + z_0.80) x the standard deviation of the per-task differences / sqrt(tasks). Equal scores share too.
"""

from __future__ import annotations

import math
import statistics

from sandbox.servers.hardware import USABILITY_FIRST

Z95 = 1.959963984540054  # norm.ppf(0.975)
Z80 = 0.8416212335729143  # norm.ppf(0.80)


def ranked_by(hardware_class: str | None) -> str:
    return "usability" if hardware_class in USABILITY_FIRST else "composite"


def era(fingerprints) -> str:
    """A row's era: the short fingerprints of the suite versions its results came from, joined when several."""
    found = sorted({str(f)[:8] for f in fingerprints if f})
    return "+".join(found) or "unknown"


def min_detectable_effect(diffs: list[float], power_z: float = Z80) -> float | None:
    """The smallest paired mean difference a test at 5% (two-sided) detects with the given power over these
    per-task differences; None under two tasks (no spread to measure)."""
    if len(diffs) < 2:
        return None
    return (Z95 + power_z) * statistics.stdev(diffs) / math.sqrt(len(diffs))


def paired_gap(upper: dict[str, float], lower: dict[str, float]) -> tuple[float | None, float | None, int]:
    """(mean of upper - lower over the tasks both have, its minimum detectable effect, those tasks)."""
    common = sorted(set(upper) & set(lower))
    diffs = [upper[t] - lower[t] for t in common]
    return (sum(diffs) / len(diffs) if diffs else None), min_detectable_effect(diffs), len(diffs)


def shared_ranks(scores: list[dict[str, float]]) -> list[dict]:
    """Rank numbers for rows already sorted best first, each given as its per-task scores: a row shares the number
    of the row above when their paired gap is not detectable (below the minimum detectable effect, or no tasks in
    common to tell them apart, or exactly equal); otherwise its number is its position. Each entry also says the
    gap to the row above and that gap's minimum detectable effect."""
    out: list[dict] = []
    for i, mine in enumerate(scores):
        if i == 0:
            out.append({"rank": 1, "gap": None, "mde": None, "tasks": 0, "shared": False})
            continue
        gap, mde, n = paired_gap(scores[i - 1], mine)
        shared = gap is None or gap == 0 or mde is None or abs(gap) < mde
        out.append({"rank": out[-1]["rank"] if shared else i + 1, "gap": gap, "mde": mde, "tasks": n,
                    "shared": shared})
    return out


def ranking_groups(rows: list[dict], key) -> list[tuple[tuple, list[dict]]]:
    """Rows split into the groups that are ranked apart, each keyed by key(row), a tuple of strings: the composite's
    groups before the usability ones, then by key; each group's rows in their order."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return sorted(groups.items(), key=lambda kv: ("usability" in kv[0], kv[0]))
