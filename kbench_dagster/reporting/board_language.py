"""The board's language pages, from textjob_replies and breakdown_answers:

- textjobs.html: per model and job the pass rate with its 95% interval over items and the family's own measure;
  textjobs/<model>.html lists every reply, each linking to a page with the prompt and the reply (escaped).
- breakdown.html: per model, wording and job, the three ways' shares of items right with intervals, as a table and
  as a plot; breakdown/<model>.html lists every item with each way's answer.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting.board_html import esc, page, pct, slug
from kbench_dagster.reporting.stats import wilson_p
from kbench_dagster.store import ResultsStore
from task_defs.breakdown.jobs import load_breakdown_jobs
from task_defs.breakdown.prompts import item_prompt
from task_defs.textjobs.metrics import HEADLINE, job_figures
from task_defs.vocabulary import SCORED_SQL

TEXT_SQL = f"""
SELECT model, job, family, item, seed, outcome, parse, score, passed, tp, n_pred, n_gold, expected, predicted,
       fields, note, prompt, reply
FROM textjob_replies WHERE outcome IN {SCORED_SQL} ORDER BY model, job, item, seed
"""
# items are the unit of the interval: an item's share over its seeds, then the mean over items
BREAKDOWN_SQL = """
SELECT model, wording, job, way, count(*) AS items, avg(share) AS accuracy
FROM (SELECT model, wording, job, way, item, avg("right"::INT) AS share FROM breakdown_answers
      WHERE "right" IS NOT NULL GROUP BY ALL)
GROUP BY ALL ORDER BY model, wording, job, way
"""
ITEMS_SQL = """
SELECT model, wording, job, item, way, seed, "right", parse, answer FROM breakdown_answers
ORDER BY model, wording, job, item, way, seed
"""
WAYS = ("agent", "prompt", "item")
COLORS = {"agent": "#3465a4", "prompt": "#c17d11", "item": "#4e9a06"}


def _ci(p: float | None, n: int) -> str:
    if p is None or not n:
        return "–"
    lo, hi = wilson_p(p, n)
    return f"{pct(p)} <span class=ci>[{pct(lo)}, {pct(hi)}]</span>"


def textjob_figures(store: ResultsStore) -> dict[str, dict[str, dict]]:
    """model -> job -> the figures the board shows (the same functions as `kbench textjobs`), and the rows."""
    cols, found = store.query(TEXT_SQL)
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in found:
        r = dict(zip(cols, row))
        r["fields"] = json.loads(r["fields"]) if isinstance(r["fields"], str) else (r["fields"] or {})
        # a scored attempt without a score (its reply timed out, or none was kept) counts as nothing right
        r.update({k: r[k] or 0 for k in ("tp", "n_pred", "n_gold", "score")}, passed=bool(r["passed"]),
                 parse=r["parse"] or "none")
        by[(r["model"], r["job"])].append(r)
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for (model, job), rows in by.items():
        family = rows[0]["family"]
        # every label met, expected or replied: the same macro-F1 as OUT.json's over the job's declared labels
        labels = sorted({r[k] for r in rows for k in ("expected", "predicted") if r[k]})
        fig = job_figures(family, rows, labels)
        per_item: dict[str, list[bool]] = defaultdict(list)
        for r in rows:
            per_item[r["item"]].append(bool(r["passed"]))
        shares = [sum(v) / len(v) for v in per_item.values()]
        out[model][job] = {**fig, "family": family, "items": len(shares), "item_share": sum(shares) / len(shares),
                           "headline": HEADLINE[family], "rows": rows}
    return dict(out)


def _reply_page(model: str, r: dict, out: Path) -> str:
    href = f"textjobs/{slug(model)}/{slug(r['job'] + '.' + r['item'] + '.s' + str(r['seed']))}.html"
    body = (f"<p>outcome <b id=outcome>{esc(r['outcome'])}</b>, parse {esc(r['parse'])}, score {esc(r['score'])}"
            f" {esc(r['note'])}</p><h2>Prompt</h2><pre>{esc(r['prompt'])}</pre><h2>Reply</h2>"
            f"<pre id=reply>{esc(r['reply'])}</pre>")
    (out / href).parent.mkdir(parents=True, exist_ok=True)
    (out / href).write_text(page(f"{r['job']}.{r['item']} s{r['seed']} · {model}", body, depth=2))
    return href


def textjob_pages(store: ResultsStore, out: Path) -> None:
    figures = textjob_figures(store)
    (out / "textjobs").mkdir(exist_ok=True)
    jobs = sorted({j for m in figures.values() for j in m})
    head = "".join(f"<th>{esc(j)}</th>" for j in jobs)
    rows = [f"<table id=textjobs><tr><th class=l>model</th>{head}</tr>"]
    for model, by_job in sorted(figures.items()):
        href = f"textjobs/{slug(model)}.html"
        cells = "".join(f"<td data-job='{esc(j)}'>{_ci(by_job[j]['item_share'], by_job[j]['items'])}</td>"
                        if j in by_job else "<td>–</td>" for j in jobs)
        rows.append(f"<tr><td class=l><a href='{href}'>{esc(model)}</a></td>{cells}</tr>")
        detail = ["<table><tr><th class=l>job</th><th class=l>family</th><th>items</th><th>passed (95% CI)</th>"
                  "<th>invalid</th><th class=l>measure</th></tr>"]
        listing = ["<h2>Every reply</h2><table><tr><th class=l>item</th><th>seed</th><th>outcome</th><th>parse</th>"
                   "<th>score</th><th class=l>note</th></tr>"]
        for job, f in sorted(by_job.items()):
            detail.append(f"<tr><td class=l>{esc(job)}</td><td class=l>{esc(f['family'])}</td><td>{f['items']}</td>"
                          f"<td>{_ci(f['item_share'], f['items'])}</td><td>{f['invalid']}</td>"
                          f"<td class=l>{esc(f['headline'])} {esc(f.get(f['headline']))}</td></tr>")
            for r in f["rows"]:
                link = _reply_page(model, r, out)
                listing.append(f"<tr><td class=l><a href='../{link}'>{esc(job)}.{esc(r['item'])}</a></td>"
                               f"<td>{r['seed']}</td><td>{esc(r['outcome'])}</td><td>{esc(r['parse'])}</td>"
                               f"<td>{esc(r['score'])}</td><td class=l>{esc(r['note'])}</td></tr>")
        detail.append("</table>")
        listing.append("</table>")
        (out / href).write_text(page(f"text jobs · {model}", "\n".join(detail + listing), depth=1))
    rows.append("</table>")
    body = ("<p>Share of items with full marks per job (mean over seeds), with a 95% Wilson interval over items."
            "</p>" + "\n".join(rows)) if figures else "<p>No text job results in the store yet.</p>"
    (out / "textjobs.html").write_text(page("Text jobs", body))


def _plot(groups: list[tuple[str, dict[str, tuple[float, int]]]]) -> str:
    """Grouped bars: per job, the three ways' accuracy with its interval as a whisker."""
    bar, gap, h = 18, 30, 160
    width = max(1, len(groups)) * (3 * bar + gap) + 60
    parts = [f"<svg class=plot width='{width}' height='{h + 40}' role=img aria-label='three ways per job'>"]
    for gi, (job, ways) in enumerate(groups):
        x0 = 40 + gi * (3 * bar + gap)
        for wi, way in enumerate(WAYS):
            if way not in ways:
                continue
            p, n = ways[way]
            lo, hi = wilson_p(p, n)
            x = x0 + wi * bar
            parts.append(f"<rect x='{x}' y='{10 + h * (1 - p):.1f}' width='{bar - 3}' height='{h * p:.1f}' "
                         f"fill='{COLORS[way]}'><title>{esc(job)} {way}: {pct(p)}</title></rect>"
                         f"<line x1='{x + bar / 2 - 1.5:.1f}' x2='{x + bar / 2 - 1.5:.1f}' y1='{10 + h * (1 - lo):.1f}'"
                         f" y2='{10 + h * (1 - hi):.1f}' stroke='#000'/>")
        parts.append(f"<text x='{x0}' y='{h + 28}' font-size='11'>{esc(job)}</text>")
    parts.append("</svg>")
    legend = " ".join(f"<span style='color:{c}'>&#9632; {w}</span>" for w, c in COLORS.items())
    return "".join(parts) + f"<p>{legend}</p>"


def breakdown_pages(store: ResultsStore, out: Path) -> None:
    _, found = store.query(BREAKDOWN_SQL)
    data: dict[tuple[str, str], dict[str, dict[str, tuple[float, int]]]] = defaultdict(lambda: defaultdict(dict))
    for model, wording, job, way, n, acc in found:
        data[(model, wording)][job][way] = (acc, n)
    _, items = store.query(ITEMS_SQL)
    answers: dict[str, list[tuple]] = defaultdict(list)
    for row in items:
        answers[row[0]].append(row[1:])
    (out / "breakdown").mkdir(exist_ok=True)
    body = ["<p>Share of items right per way (mean over repetitions), with a 95% Wilson interval over items: "
            "the agent on a file of the items, one prompt holding every item, one question per item.</p>"]
    for (model, wording), jobs in sorted(data.items()):
        href = f"breakdown/{slug(model)}.html"
        body.append(f"<h2><a href='{href}'>{esc(model)}</a> · prompts {esc(wording)}</h2>"
                    "<table class=breakdown><tr><th class=l>job</th>"
                    + "".join(f"<th>{w}</th>" for w in WAYS) + "<th>best</th></tr>")
        for job, ways in sorted(jobs.items()):
            top = max(p for p, _ in ways.values())
            best = [w for w in WAYS if w in ways and ways[w][0] == top]
            body.append(f"<tr><td class=l>{esc(job)}</td>"
                        + "".join(f"<td data-way='{w}'>{_ci(*ways[w]) if w in ways else '–'}</td>" for w in WAYS)
                        + f"<td>{'tie' if len(best) > 1 else best[0]}</td></tr>")
        body.append("</table>" + _plot(sorted(jobs.items())))
    links = _breakdown_item_pages(out, {(w, j, i) for rows in answers.values() for w, j, i, *_ in rows})
    for model, rows in answers.items():
        lines = ["<table><tr><th class=l>prompts</th><th class=l>job</th><th class=l>item</th><th class=l>way</th>"
                 "<th>seed</th><th>right</th><th class=l>answer as given</th></tr>"]
        for w, j, i, way, s_, r, p, a in rows:
            href = links.get((w, j, i))
            item = f"<a href='../{href}'>{esc(i)}</a>" if href else esc(i)
            lines.append(f"<tr><td class=l>{esc(w)}</td><td class=l>{esc(j)}</td><td class=l>{item}</td>"
                         f"<td class=l>{esc(way)}</td><td>{s_}</td><td>{'yes' if r else esc(p)}</td>"
                         f"<td class=l>{esc(a)}</td></tr>")
        (out / f"breakdown/{slug(model)}.html").write_text(
            page(f"breakdown · {model}", "\n".join(lines) + "</table>", depth=1))
    if not data:
        body = ["<p>No breakdown results in the store yet.</p>"]
    (out / "breakdown.html").write_text(page("Breakdown", "\n".join(body)))


def _breakdown_item_pages(out: Path, wanted: set[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
    """One page per (wording, job, item) with an answer in the store: the item as the model saw it asked on its
    own, and the answer key. Items no longer in the suite get no page."""
    jobs = {j.id: j for j in load_breakdown_jobs()}
    links = {}
    for wording, job_id, item_id in wanted:
        job = jobs.get(job_id)
        item = next((it for it in job.items if it.id == item_id), None) if job else None
        if item is None or wording not in ("tested", "first"):
            continue
        href = f"breakdown/items/{slug(f'{job_id}.{item_id}.{wording}')}.html"
        body = (f"<p>job {esc(job.spec.title)}, answer form {esc(job.spec.answer)}, key <b id=key>{esc(item.answer)}"
                f"</b></p><h2>Asked on its own (way item, prompts {esc(wording)})</h2>"
                f"<pre>{esc(item_prompt(job, item, wording))}</pre><p>The prompt way holds this item among all of "
                f"the job's items in one request; the agent way finds it in items.jsonl.</p>")
        (out / href).parent.mkdir(parents=True, exist_ok=True)
        (out / href).write_text(page(f"{job_id}.{item_id} · prompts {wording}", body, depth=2))
        links[(wording, job_id, item_id)] = href
    return links
