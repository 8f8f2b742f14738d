"""The board's kernel pages: per model, how its kernels fared at the grader (status counts, the correctness gate)
and how fast the correct ones ran (geometric mean of the score per task and device), from kernel_gradings."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting.board_html import esc, page, pct, slug
from kbench_dagster.store import ResultsStore
from task_defs.vocabulary import KERNEL_STATUSES, SCORED_SQL

# One row per model x harness x condition x device x task. The score's geometric mean is over correct kernels only
# (an incorrect kernel scores 0, which a geometric mean cannot hold; the gate column says how many were correct).
PER_TASK_SQL = f"""
SELECT model, agent, condition, COALESCE(device_name, device_kind, 'not graded') AS device, task, family,
       any_value(unit) AS unit,
       count(*) FILTER (WHERE outcome IN {SCORED_SQL}) AS graded,
       count(*) FILTER (WHERE outcome = 'pass') AS correct,
       exp(avg(ln(score)) FILTER (WHERE outcome = 'pass' AND score > 0)) AS geomean
FROM kernel_gradings GROUP BY ALL ORDER BY model, agent, condition, device, task
"""
STATUS_SQL = """
SELECT model, agent, condition, COALESCE(status, outcome) AS status, count(*) AS n
FROM kernel_gradings GROUP BY ALL
"""


def kernel_summary(store: ResultsStore) -> dict[str, dict]:
    """model -> {"tasks": per-task rows, "statuses": {(agent, condition): {status: n}}} for the kernel pages."""
    _, tasks = store.query(PER_TASK_SQL)
    _, statuses = store.query(STATUS_SQL)
    out: dict[str, dict] = defaultdict(lambda: {"tasks": [], "statuses": defaultdict(dict)})
    cols = ("model", "agent", "condition", "device", "task", "family", "unit", "graded", "correct", "geomean")
    for row in tasks:
        r = dict(zip(cols, row))
        out[r["model"]]["tasks"].append(r)
    for model, agent, condition, status, n in statuses:
        out[model]["statuses"][(agent, condition)][status] = n
    return dict(out)


def _score(r: dict) -> str:
    return "–" if r["geomean"] is None else f"{r['geomean']:.3g} {esc(r['unit'])}"


def _model_page(model: str, data: dict) -> str:
    order = [s for s in KERNEL_STATUSES] + ["pending", "nofile"]
    body = ["<h2>Grader statuses</h2><table><tr><th class=l>harness</th><th class=l>condition</th>"
            + "".join(f"<th>{esc(s)}</th>" for s in order) + "</tr>"]
    for (agent, condition), counts in sorted(data["statuses"].items()):
        body.append(f"<tr><td class=l>{esc(agent)}</td><td class=l>{esc(condition)}</td>"
                    + "".join(f"<td>{counts.get(s, 0)}</td>" for s in order) + "</tr>")
    body.append("</table><h2>Per task and device</h2><table><tr><th class=l>harness</th><th class=l>condition</th>"
                "<th class=l>device</th><th class=l>task</th><th class=l>family</th><th>correct (gate)</th>"
                "<th>geometric-mean score of correct kernels</th></tr>")
    for r in data["tasks"]:
        gate = f"{r['correct']}/{r['graded']}" + (f" ({pct(r['correct'] / r['graded'])})" if r["graded"] else "")
        body.append(f"<tr><td class=l>{esc(r['agent'])}</td><td class=l>{esc(r['condition'])}</td>"
                    f"<td class=l>{esc(r['device'])}</td><td class=l>{esc(r['task'])}</td>"
                    f"<td class=l>{esc(r['family'])}</td><td>{gate}</td><td>{_score(r)}</td></tr>")
    body.append("</table>")
    return "\n".join(body)


def kernel_pages(store: ResultsStore, out: Path) -> None:
    """kernels.html (one row per model) and kernels/<model>.html."""
    summary = kernel_summary(store)
    (out / "kernels").mkdir(exist_ok=True)
    rows = ["<table><tr><th class=l>model</th><th>tasks</th><th>correct (gate)</th><th>devices</th></tr>"]
    for model, data in sorted(summary.items()):
        graded = sum(r["graded"] for r in data["tasks"])
        correct = sum(r["correct"] for r in data["tasks"])
        devices = sorted({r["device"] for r in data["tasks"]})
        href = f"kernels/{slug(model)}.html"
        rows.append(f"<tr><td class=l><a href='{href}'>{esc(model)}</a></td>"
                    f"<td>{len({r['task'] for r in data['tasks']})}</td><td>{correct}/{graded}</td>"
                    f"<td>{esc(', '.join(devices))}</td></tr>")
        (out / href).write_text(page(f"kernels · {model}", _model_page(model, data), depth=1))
    rows.append("</table>")
    body = "\n".join(rows) if summary else "<p>No kernel results in the store yet.</p>"
    (out / "kernels.html").write_text(page("Kernels", body))
