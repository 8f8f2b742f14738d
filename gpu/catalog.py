"""CATALOG.json: every kernel task machine-readably (family, metric, roofline, GPU count, keywords, tolerances),
generated from the task files. make test holds the checked-in file to what the tasks say now."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from gpu import roofline

CATALOG_FILE = Path(__file__).parent / "CATALOG.json"


def _tolerances(task) -> dict[str, float | str]:
    if task.precision is None:
        return {}
    return {n: "exact" if p.exact else p.tolerance for n, p in task.precision.outputs.items()}


def build(tasks) -> dict:
    rows = []
    for t in sorted(tasks, key=lambda t: (t.family, t.id)):
        shape, secs, bound = roofline.largest_graded(t)
        rows.append({
            "id": t.id, "family": t.family, "title": t.title, "metric": t.metric, "unit": t.unit, "dtype": t.dtype,
            "gpus": t.gpus, "keywords": list(t.keywords),
            "roofline_us": round(secs * 1e6, 1), "roofline_bound": bound, "roofline_shape": shape,
            "tolerance": _tolerances(t),
            "variant": t.precision.variant if t.precision else None,
        })
    return {
        "roofline_gpu": roofline.DEFAULT_GPU,
        "roofline_floor_us": roofline.ROOFLINE_FLOOR_S * 1e6,
        "tasks_count": len(rows),
        "families": dict(sorted(Counter(r["family"] for r in rows).items())),
        "tasks": rows,
    }


def render(tasks) -> str:
    return json.dumps(build(tasks), indent=1) + "\n"


def stale(tasks, path: Path | None = None) -> str | None:
    """None when the file matches the tasks; else what to run."""
    path = path or CATALOG_FILE
    if not path.is_file():
        return f"{path} is missing: run `kbench kernels catalog --write`"
    if path.read_text(encoding="utf-8") != render(tasks):
        return f"{path} does not match the task files: run `kbench kernels catalog --write`"
    return None
