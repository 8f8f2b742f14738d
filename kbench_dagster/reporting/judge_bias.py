"""The judge-bias study (`kbench capability judge-bias`) read back from the store: how often the judges agree on
the same criterion of the same reply, and how each one leans on each judged model.

Only replies every judge gave a verdict on count (a reply one judge failed on is left out for all), so the judges
are compared on the same material. For each judged model:

- a judge's share: the criteria it found met over the criteria it was asked, on that model's replies;
- its lean: that share less the mean of every judge's share on the same replies (in points; the leans of one
  model sum to 0). A judge of the same family as the model (sandbox/chatwork/judge_panel.py) is marked.

Agreement per pair of judges: the share of criterion verdicts they agree on, and Cohen's kappa, which discounts
the agreement two judges reach by chance with their own yes rates: (p_o - p_e) / (1 - p_e)."""

from __future__ import annotations

import json
from itertools import combinations

from kbench_dagster.reporting.board_html import esc, page, pct
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.judge_panel import model_family
from task_defs.capability.loader import fingerprint

VERDICTS = """
SELECT judge, judge_family, model, model_family, endpoint, item, seed, criteria, met, median
FROM judge_bias WHERE suite_fingerprint = ? AND outcome = 'judged'"""
NOTE = ("Each judge judged the same stored final replies alone (all three of an item's votes its own; the verdict "
        "is the per-criterion median). Only replies every judge gave a verdict on are counted. A judge's share: the "
        "criteria it found met over the criteria asked. Its lean on a model: its share less the mean share of all "
        "judges on that model's replies, in points. Agreement: the share of criterion verdicts two judges agree "
        "on; Cohen's kappa discounts the agreement their own yes rates would give by chance. Marked (same family): "
        "the judge and the judged model come from the same maker.")


def kappa(a: list[bool], b: list[bool]) -> float | None:
    """Cohen's kappa of two raters' yes/no verdicts on the same things; None where chance agreement is total."""
    n = len(a)
    if not n:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    ya, yb = sum(a) / n, sum(b) / n
    chance = ya * yb + (1 - ya) * (1 - yb)
    return None if chance >= 1.0 else (observed - chance) / (1 - chance)


def bias_study(store: ResultsStore, suite_fingerprint: str | None = None) -> dict:
    cols, found = store.query(VERDICTS, [suite_fingerprint or fingerprint()])
    rows = [dict(zip(cols, r)) for r in found]
    judges = sorted({r["judge"] for r in rows})
    family = {r["judge"]: r["judge_family"] for r in rows}
    by_reply: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        by_reply.setdefault((r["model"], r["endpoint"], r["item"], r["seed"]), {})[r["judge"]] = r
    common = {k: v for k, v in by_reply.items() if len(v) == len(judges)}
    models: dict[tuple, dict] = {}
    for (model, endpoint, _, _), verdicts in sorted(common.items()):
        m = models.setdefault((model, endpoint), {"model": model, "endpoint": endpoint, "replies": 0,
                                                  "family": next(iter(verdicts.values()))["model_family"],
                                                  "met": dict.fromkeys(judges, 0), "asked": dict.fromkeys(judges, 0)})
        m["replies"] += 1
        for j, v in verdicts.items():
            m["met"][j] += v["met"]
            m["asked"][j] += v["criteria"]
    per_model = []
    for m in models.values():
        shares = {j: m["met"][j] / m["asked"][j] if m["asked"][j] else None for j in judges}
        known = [s for s in shares.values() if s is not None]
        mean = sum(known) / len(known) if known else None
        per_model.append({
            "model": m["model"], "endpoint": m["endpoint"], "family": m["family"], "replies": m["replies"],
            "panel_share": mean, "shares": shares,
            "lean": {j: None if s is None or mean is None else s - mean for j, s in shares.items()},
            "same_family": sorted(j for j in judges if m["family"] and family[j] == m["family"])})
    pairs = []
    for a, b in combinations(judges, 2):
        va, vb = [], []
        for verdicts in common.values():
            ma, mb = _median(verdicts[a]), _median(verdicts[b])
            if ma is not None and mb is not None and len(ma) == len(mb):
                va += ma
                vb += mb
        pairs.append({"judges": [a, b], "criteria": len(va),
                      "agreement": sum(x == y for x, y in zip(va, vb)) / len(va) if va else None,
                      "kappa": kappa(va, vb)})
    overall = {j: _share([(v[j]["met"], v[j]["criteria"]) for v in common.values()]) for j in judges}
    return {"judges": [{"judge": j, "family": family[j], "share": overall[j]} for j in judges],
            "replies": len(common), "left_out": len(by_reply) - len(common), "models": per_model, "pairs": pairs}


def _median(row: dict) -> list[bool] | None:
    got = row["median"]
    return json.loads(got) if isinstance(got, str) else got


def _share(counts: list[tuple[int, int]]) -> float | None:
    asked = sum(c for _, c in counts)
    return sum(m for m, _ in counts) / asked if asked else None


def _pts(x: float | None) -> str:
    return "&ndash;" if x is None else f"{100 * x:+.1f} pts"


def print_study(study: dict) -> None:
    print(f"judge bias: {study['replies']} replies judged by every judge ({study['left_out']} left out: a judge "
          "failed on them)")
    for j in study["judges"]:
        print(f"  {j['judge']} ({j['family'] or 'family unknown'}): criteria met {pct(j['share'])}")
    for p in study["pairs"]:
        k = "n/a" if p["kappa"] is None else f"{p['kappa']:.3f}"
        print(f"  {p['judges'][0]} vs {p['judges'][1]}: agree on {pct(p['agreement'])} of {p['criteria']} "
              f"criteria, kappa {k}")
    for m in study["models"]:
        leans = ", ".join(f"{j} {'n/a' if v is None else f'{100 * v:+.1f}'}"
                          f"{' (same family)' if j in m['same_family'] else ''}" for j, v in m["lean"].items())
        print(f"  {m['model']} @ {m['endpoint']}: panel {pct(m['panel_share'])}; lean {leans}")


def judge_bias_page(study: dict) -> str:
    if not study["judges"]:
        return page("Judge bias", "<p>No judge-bias study in the store yet: `kbench capability judge-bias --judge "
                                  "A@URL --judge B@URL` judges the stored replies with each judge alone.</p>")
    judges = [j["judge"] for j in study["judges"]]
    body = [f"<div class=note>{esc(NOTE)}</div>",
            f"<p>{study['replies']} replies judged by every judge; {study['left_out']} left out (a judge failed on "
            "them).</p>", "<table id=judges><tr><th class=l>judge</th><th class=l>family</th>"
                          "<th>criteria met</th></tr>"]
    for j in study["judges"]:
        body.append(f"<tr data-judge='{esc(j['judge'])}'><td class=l>{esc(j['judge'])}</td>"
                    f"<td class=l>{esc(j['family'] or 'unknown')}</td><td data-value='{j['share']!r}'>"
                    f"{pct(j['share'])}</td></tr>")
    body.append("</table><h2>Agreement</h2><table id=agreement><tr><th class=l>judges</th><th>criteria compared"
                "</th><th>agreement</th><th>Cohen's kappa</th></tr>")
    for p in study["pairs"]:
        k = "&ndash;" if p["kappa"] is None else f"{p['kappa']:.3f}"
        body.append(f"<tr data-pair='{esc(' vs '.join(p['judges']))}'><td class=l>{esc(' vs '.join(p['judges']))}"
                    f"</td><td>{p['criteria']}</td><td data-value='{p['agreement']!r}'>{pct(p['agreement'])}</td>"
                    f"<td data-value='{p['kappa']!r}'>{k}</td></tr>")
    body.append("</table><h2>Each judge's lean per model</h2><table id=lean><tr><th class=l>model</th>"
                "<th class=l>endpoint</th><th class=l>family</th><th>replies</th><th>panel share</th>"
                + "".join(f"<th>{esc(j)}</th>" for j in judges) + "</tr>")
    for m in study["models"]:
        cells = "".join(
            f"<td data-judge='{esc(j)}' data-value='{m['lean'][j]!r}' "
            f"class='{'warn' if j in m['same_family'] else ''}'>"
            f"{pct(m['shares'][j])} ({_pts(m['lean'][j])}){' same family' if j in m['same_family'] else ''}</td>"
            for j in judges)
        body.append(f"<tr data-model='{esc(m['model'])}'><td class=l>{esc(m['model'])}</td>"
                    f"<td class=l>{esc(m['endpoint'])}</td><td class=l>{esc(m['family'] or 'unknown')}</td>"
                    f"<td>{m['replies']}</td><td>{pct(m['panel_share'])}</td>{cells}</tr>")
    body.append("</table>")
    return page("Judge bias", "\n".join(body))


def same_family_judges(model: str, record) -> list[str]:
    """The judges of a stored verdict (its `judge` record) that cast a vote and share the judged model's family."""
    rec = json.loads(record) if isinstance(record, str) else record
    if not isinstance(rec, dict) or not (family := model_family(model)):
        return []
    panel = rec.get("panel") or []
    cast = {v.get("member") for v in rec.get("votes") or [] if isinstance(v, dict)}
    return sorted({m.get("model") for i, m in enumerate(panel)
                   if isinstance(m, dict) and i in cast and m.get("family") == family})
