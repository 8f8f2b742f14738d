"""The published board: a static site written from the results store, with no external network.

Pages: index.html (the leaderboard with CI bars, statistical tiers, usability, completion and filters for harness,
condition, server and hardware, plus the plots), model/<model>.html (one section per agent x condition x server x
hardware), compare.html (paired deltas with CIs), tasks.html and task/<task>.html (every attempt), and
run/<run>/<cond>/<task>/s<seed>.html (one attempt's conversation, hidden test output and final files). CSS and
JS are inline; plots are inline SVG. Every number links to the page that lists the runs behind it.
"""

from __future__ import annotations

import functools
import hashlib
import html
import http.server
import json
import math
import re
import shutil
import signal
from collections import defaultdict
from pathlib import Path

from kbench_dagster import board_data, stats
from kbench_dagster.board_trajectory import args_text, conversation, final_files, read_text
from kbench_dagster.store import ResultsStore

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{background:#1d2330;color:#fff;padding:.6em 1.2em}header a{color:#cfe0ff;margin-right:1.2em;text-decoration:none}
main{padding:1em 1.4em;max-width:1500px}h1{font-size:1.35em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em}
table{border-collapse:collapse;font-size:.86em;margin:.5em 0}th,td{border-bottom:1px solid #e2e5ea;padding:.25em .55em;
text-align:right;vertical-align:top}th{background:#eef1f5;position:sticky;top:0}td.l,th.l{text-align:left}
a.num{color:#0b57d0;text-decoration:none}a.num:hover{text-decoration:underline}.ci{color:#677;font-size:.85em}
.note{background:#fff8e1;border-left:4px solid #f2b600;padding:.5em .8em;margin:.8em 0;font-size:.9em}
.warn{color:#a4461b}.tier{font-weight:600}.pass{color:#187a2f}.fail{color:#b3261e}.infra{color:#7a5b00}
pre{background:#f3f4f7;padding:.6em;overflow-x:auto;white-space:pre-wrap;font-size:.82em;max-height:40em}
.turn{border-left:4px solid #ccd;margin:.6em 0;padding:.2em .8em;background:#fff}.turn.user{border-color:#5b8def}
.turn.assistant{border-color:#3aa757}.turn.tool_call{border-color:#b06bd8}.turn.tool_result{border-color:#999}
.turn.error{border-color:#d93025}.turn.note{border-color:#f2b600}.who{font-size:.78em;color:#555;font-weight:600}
.filters select{margin-right:1em}svg text{font-size:11px;font-family:inherit}
"""

FILTER_JS = """
function kbFilter(){
  var sel={};document.querySelectorAll('.filters select').forEach(function(s){sel[s.name]=s.value;});
  document.querySelectorAll('tr[data-group]').forEach(function(tr){
    var show=true;for(var k in sel){if(sel[k]&&tr.dataset[k]!==sel[k]){show=false;}}
    tr.style.display=show?'':'none';});
  var q=[];for(var k in sel){if(sel[k]){q.push(k+'='+encodeURIComponent(sel[k]));}}
  try{history.replaceState(null,'',q.length?'?'+q.join('&'):location.pathname);}catch(e){}
}
document.addEventListener('DOMContentLoaded',function(){
  // filters live in the URL (index.html?agent=pi&condition=base), so a link lands on the same view
  var params=new URLSearchParams(location.search);
  document.querySelectorAll('.filters select').forEach(function(s){if(params.get(s.name)){s.value=params.get(s.name);}});
  kbFilter();
});
"""

TIER_NOTE = ("Statistical tiers: models on one board (same harness and condition) are compared by paired per-task "
             "differences. When the paired 95% CI (seeded cluster bootstrap over tasks) crosses zero the suite "
             "cannot rank them and they share a tier. Rank order inside a tier is display order only, not a "
             "measured difference.")


def slug(text: str) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "x"
    return f"{base}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def esc(v) -> str:
    return html.escape("" if v is None else str(v))


def pct(p) -> str:
    return stats.fmt_pct(p)


def page(title: str, body: str, depth: int = 0, script: str = "") -> str:
    up = "../" * depth
    nav = (f'<a href="{up}index.html">Leaderboard</a><a href="{up}compare.html">Compare</a>'
           f'<a href="{up}tasks.html">Tasks</a>')
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{CSS}</style>{'<script>' + script + '</script>' if script else ''}</head>"
            f"<body><header><strong>kbench</strong> &nbsp; {nav}</header><main><h1>{esc(title)}</h1>\n{body}\n"
            "</main></body></html>\n")


def _num(value: float | None, href: str, field: str, text: str | None = None) -> str:
    shown = text if text is not None else pct(value)
    data = "" if value is None else f' data-value="{value!r}"'
    return f'<a class="num" data-field="{field}"{data} href="{esc(href)}">{esc(shown)}</a>'


def ci_bar(ci, p, width: int = 120) -> str:
    if ci is None or p is None:
        return ""
    x0, x1, xp = (width * ci[0], width * ci[1], width * p)
    return (f'<svg width="{width}" height="12" role="img" aria-label="95% CI"><rect x="0" y="5" width="{width}" '
            f'height="2" fill="#e2e5ea"/><rect x="{x0:.1f}" y="3" width="{max(x1 - x0, 1):.1f}" height="6" '
            f'fill="#9bb8ee"/><circle cx="{xp:.1f}" cy="6" r="3" fill="#0b57d0"/></svg>')


# ---------------------------------------------------------------------------------------------- plots

def plot_intervals(groups: list[dict], link) -> str:
    """Pass rate with its Wilson interval (and the bootstrap interval, thin) per model, one row each."""
    if not groups:
        return ""
    row_h, left, width = 18, 330, 420
    h = row_h * len(groups) + 30
    parts = [f'<svg width="{left + width + 20}" height="{h}" role="img" aria-label="pass rate with intervals">']
    for tick in range(0, 101, 20):
        x = left + width * tick / 100
        parts.append(f'<line x1="{x}" y1="0" x2="{x}" y2="{h - 20}" stroke="#e2e5ea"/>'
                     f'<text x="{x}" y="{h - 6}" text-anchor="middle">{tick}%</text>')
    for i, g in enumerate(groups):
        s, y = g["summary"], 12 + i * row_h
        label = f"{g['model']} · {g['agent']} · {g['condition']}"
        parts.append(f'<a href="{esc(link(g))}"><text x="{left - 8}" y="{y + 4}" text-anchor="end">{esc(label[:52])}</text></a>')
        if s["pass@1"] is None:
            continue
        lo, hi = s["pass@1_ci"]
        parts.append(f'<line x1="{left + width * lo:.1f}" y1="{y}" x2="{left + width * hi:.1f}" y2="{y}" '
                     f'stroke="#9bb8ee" stroke-width="6"/>')
        if s["boot_ci"]:
            b0, b1 = s["boot_ci"]
            parts.append(f'<line x1="{left + width * b0:.1f}" y1="{y + 5}" x2="{left + width * b1:.1f}" y2="{y + 5}" '
                         f'stroke="#555" stroke-width="1"/>')
        parts.append(f'<circle cx="{left + width * s["pass@1"]:.1f}" cy="{y}" r="4" fill="#0b57d0"/>')
    parts.append("</svg>")
    return "".join(parts) + ('<p class="ci">Dot: task-balanced pass@1; thick bar: Wilson 95%; thin line: '
                             'category-clustered bootstrap 95%.</p>')


def plot_scatter(groups: list[dict], xkey: str, xlabel: str, link) -> str:
    pts = [(g["mech"].get(xkey), g["summary"]["pass@1"], g) for g in groups
           if g["mech"].get(xkey) is not None and g["summary"]["pass@1"] is not None]
    if not pts:
        return ""
    w, h, pad = 420, 260, 46
    xmax = max(p[0] for p in pts) or 1.0
    xmax = float(xmax) * 1.05
    parts = [f'<svg width="{w}" height="{h}" role="img" aria-label="pass rate against {esc(xlabel)}">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#888"/>',
             f'<line x1="{pad}" y1="10" x2="{pad}" y2="{h - pad}" stroke="#888"/>',
             f'<text x="{(w + pad) / 2}" y="{h - 8}" text-anchor="middle">{esc(xlabel)}</text>']
    for tick in range(0, 101, 25):
        y = h - pad - (h - pad - 10) * tick / 100
        parts.append(f'<text x="{pad - 4}" y="{y + 4}" text-anchor="end">{tick}%</text>')
    for frac in (0, 0.5, 1):
        x = pad + (w - 10 - pad) * frac
        v = xmax * frac
        parts.append(f'<text x="{x}" y="{h - pad + 14}" text-anchor="middle">{v:,.0f}</text>' if v >= 10 else
                     f'<text x="{x}" y="{h - pad + 14}" text-anchor="middle">{v:.2g}</text>')
    for xv, yv, g in pts:
        x = pad + (w - 10 - pad) * float(xv) / xmax
        y = h - pad - (h - pad - 10) * yv
        lo, hi = g["summary"]["pass@1_ci"]
        parts.append(f'<a href="{esc(link(g))}"><title>{esc(g["key"])}: {pct(yv)} at {float(xv):.3g}</title>'
                     f'<line x1="{x:.1f}" y1="{h - pad - (h - pad - 10) * lo:.1f}" x2="{x:.1f}" '
                     f'y2="{h - pad - (h - pad - 10) * hi:.1f}" stroke="#9bb8ee" stroke-width="2"/>'
                     f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#0b57d0"/></a>')
    parts.append("</svg>")
    return "".join(parts)


def plot_deltas(comps: list[dict], label) -> str:
    if not comps:
        return ""
    row_h, left, width = 18, 420, 360
    h = row_h * len(comps) + 30
    parts = [f'<svg width="{left + width + 20}" height="{h}" role="img" aria-label="paired differences">']
    x0 = left + width / 2
    for tick in (-100, -50, 0, 50, 100):
        x = x0 + width / 2 * tick / 100
        parts.append(f'<line x1="{x}" y1="0" x2="{x}" y2="{h - 20}" stroke="{"#888" if tick == 0 else "#e2e5ea"}"/>'
                     f'<text x="{x}" y="{h - 6}" text-anchor="middle">{tick:+d}</text>')
    for i, c in enumerate(comps):
        y = 12 + i * row_h
        parts.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{esc(label(c)[:64])}</text>')
        if c["mean_diff"] is None:
            continue
        lo, hi = c["ci_boot"]
        parts.append(f'<line x1="{x0 + width / 2 * lo:.1f}" y1="{y}" x2="{x0 + width / 2 * hi:.1f}" y2="{y}" '
                     f'stroke="#9bb8ee" stroke-width="6"/><circle cx="{x0 + width / 2 * c["mean_diff"]:.1f}" cy="{y}" '
                     f'r="4" fill="#0b57d0"/>')
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------- pages

def group_warnings(g: dict, board_tasks: int, harness: dict[str, set]) -> list[str]:
    s, m = g["summary"], g["mech"]
    out = []
    if s["seeds_min"] < stats.MIN_SEEDS:
        out.append(f"fewer than {stats.MIN_SEEDS} seeds")
    if s["seeds_min"] != s["seeds_max"] or s["tasks"] < board_tasks:
        out.append("partial")
    if m["fingerprints"] > 1:
        out.append("mixed suite fingerprints")
    if len(harness.get(g["agent"], ())) > 1:
        out.append("mixed harness versions")
    if s["attrition"] > stats.ATTRITION_LIMIT:
        out.append(f"attrition {pct(s['attrition'])}")
    if m["watchdog_kills"]:
        out.append(f"{m['watchdog_kills']} watchdog kills")
    if m["outside_write_runs"]:
        out.append(f"{m['outside_write_runs']} outside writes")
    return out


def _model_href(g: dict, depth: int = 0) -> str:
    return f"{'../' * depth}model/{slug(g['model'])}.html#{slug(g['key'])}"


def _tier(t: dict) -> str:
    """T1, T2, ...; an unranked model shows a dash with the reason on hover."""
    if t["tier"] is None:
        return f'<span title="not ranked: {esc(t.get("unranked") or "")}">&ndash;</span>'
    return f"T{t['tier']}"


def _leaderboard(agg: dict, warns: dict[str, list[str]]) -> str:
    groups = agg["groups"]
    tiers = agg["tiers"]
    order = sorted(groups, key=lambda g: (tiers[g["key"]]["board"], *stats.tier_order(tiers[g["key"]]),
                                          -(g["summary"]["pass@1"] or 0), g["key"]))
    opts = {}
    for field in ("agent", "condition", "server", "hardware"):
        values = sorted({str(g[field]) for g in groups})
        opts[field] = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    filters = ('<div class="filters">' + "".join(
        f'<label>{label} <select name="{f}" onchange="kbFilter()"><option value="">all</option>{opts[f]}</select></label>'
        for f, label in (("agent", "harness"), ("condition", "condition"), ("server", "server"), ("hardware", "hardware")))
        + "</div>")
    head = ("<tr><th class=l>board</th><th>tier</th><th class=l>model</th><th class=l>harness</th><th class=l>condition</th>"
            "<th class=l>server</th><th class=l>hardware</th><th>pass@1</th><th class=l>95% CI</th><th></th>"
            "<th>pass-any</th><th>pass@k</th><th>pass^k</th><th>usability</th><th>completion</th><th>attrition</th>"
            "<th>runs</th><th>seeds</th><th class=l>warnings</th></tr>")
    rows = []
    for g in order:
        s, t = g["summary"], tiers[g["key"]]
        href = _model_href(g)
        attrs = " ".join(f'data-{f}="{esc(g[f])}"' for f in ("agent", "condition", "server", "hardware"))
        w = warns[g["key"]]
        rows.append(
            f'<tr data-group="{esc(g["key"])}" {attrs}><td class=l>{esc(t["board"])}</td>'
            f'<td class="tier">{_tier(t)}</td><td class=l><a href="{esc(href)}">{esc(g["model"])}</a></td>'
            f'<td class=l>{esc(g["agent"])}</td><td class=l>{esc(g["condition"])}</td><td class=l>{esc(g["server"])}</td>'
            f'<td class=l>{esc(g["hardware"])}</td><td>{_num(s["pass@1"], href, "pass1")}</td>'
            f'<td class="l ci">{stats.fmt_ci(s["pass@1_ci"])}</td><td>{ci_bar(s["pass@1_ci"], s["pass@1"])}</td>'
            f'<td>{_num(s["pass_any"], href, "pass_any")}</td><td>{_num(s["pass@k"], href, "pass_k", pct(s["pass@k"]) + " (k=" + str(s["k"]) + ")")}</td>'
            f'<td>{_num(s["pass^k"], href, "pass_hat_k")}</td><td>{_num(s["usability"], href, "usability")}</td>'
            f'<td>{_num(s["completion"], href, "completion")}</td><td>{_num(s["attrition"], href, "attrition")}</td>'
            f'<td>{_num(s["runs"], href, "runs", str(s["runs"]))}</td><td>{s["seeds_min"]}'
            f'{"" if s["seeds_min"] == s["seeds_max"] else "-" + str(s["seeds_max"])}</td>'
            f'<td class="l warn">{esc("; ".join(w))}</td></tr>')
    return (filters + f'<div class="note">{esc(TIER_NOTE)}</div>'
            f'<table id="leaderboard">{head}{"".join(rows)}</table>'
            '<p class="ci">pass@1: the task-balanced mean of each task\'s pass share (infra failures excluded, shown '
            'as attrition). Usability: per-task share that passed inside the time budget, timeouts and infra '
            'failures as 0. Completion: share of attempts that finished inside the budget.</p>')


def _model_pages(agg: dict, out: Path, warns: dict[str, list[str]], run_pages: set) -> None:
    by_model: dict[str, list[dict]] = defaultdict(list)
    for g in agg["groups"]:
        by_model[g["model"]].append(g)
    (out / "model").mkdir(exist_ok=True)
    for model, groups in by_model.items():
        body = []
        for g in groups:
            s, m, t = g["summary"], g["mech"], agg["tiers"][g["key"]]
            gs = slug(g["key"])
            body.append(f'<h2 id="{gs}">{esc(g["agent"])} · {esc(g["condition"])} · {esc(g["server"])} · '
                        f'{esc(g["hardware"])} &nbsp; <span class="tier">{_tier(t)}</span> on {esc(t["board"])}</h2>')
            if warns[g["key"]]:
                body.append(f'<p class="warn">not ready to publish: {esc("; ".join(warns[g["key"]]))}</p>')
            def line(label, value, ci=None, fmt=pct):  # noqa: E306
                return (f"<tr><td class=l>{esc(label)}</td><td>{esc(fmt(value))}</td>"
                        f"<td class='l ci'>{stats.fmt_ci(ci, 1) if ci else ''}</td></tr>")
            se = lambda v: "-" if v is None else f"{100 * v:.2f} pts"  # noqa: E731
            body.append("<table><tr><th class=l>number</th><th>value</th><th class=l>95% interval</th></tr>"
                        + line("pass@1 (task-balanced, Wilson)", s["pass@1"], s["pass@1_ci"])
                        + line("pass@1 (category-clustered bootstrap)", s["pass@1"], s["boot_ci"])
                        + line("SE clustered by task", s["se_task"], fmt=se)
                        + line("SE clustered by category", s["se_category"], fmt=se)
                        + line("SE if runs were independent", s["se_naive"], fmt=se)
                        + line("passed runs / runs", s["pass_rate_runs"])
                        + line("pass-any", s["pass_any"], s["pass_any_ci"])
                        + line(f"pass@{s['k']} (unbiased)", s["pass@k"]) + line(f"pass^{s['k']}", s["pass^k"])
                        + line("usability", s["usability"], s.get("usability_ci"))
                        + line("completion", s["completion"], s.get("completion_ci"))
                        + line("attrition (infra)", s["attrition"], s["attrition_ci"]) + "</table>")
            body.append("<table><tr><th class=l>slice</th><th>tasks</th><th>passes / runs</th><th>pass@1</th>"
                        "<th class=l>Wilson 95%</th></tr>" + "".join(
                            f"<tr><td class=l>{esc(kind)} {esc(k)}</td><td>{v['tasks']}</td><td>{v['passes']}/{v['runs']}"
                            f"</td><td>{pct(v['pass@1'])}</td><td class='l ci'>{stats.fmt_ci(v['pass@1_ci'])}</td></tr>"
                            for kind, part in (("tier", s["tiers"]), ("category", s["categories"])) for k, v in part.items())
                        + "</table>")
            body.append(f"<p>mean time {m['mean_time_s'] or 0:.1f}s, mean turns {m['mean_turns'] or 0:.1f}, mean output "
                        f"tokens {m['mean_output_tokens'] or 0:.0f}, cut-off replies {m['cutoffs']}, tool errors "
                        f"{m['tool_errors']}, tool-format errors {m['tool_format_errors']}, false claims "
                        f"{m['false_claims']}, watchdog kills {m['watchdog_kills']}, runs with outside writes "
                        f"{m['outside_write_runs']}</p>")
            body.append(f"<p>runs: {esc(', '.join(m['run_ids']))}</p>")
            cells = "".join(
                f"<tr><td class=l><a href='../task/{esc(slug(task))}.html#{gs}'>{esc(task)}</a></td>"
                f"<td class=l>{esc(tt['category'])}</td><td class=l>{esc(tt['tier'])}</td>"
                f"<td><a class='num' data-field='task_passes' href='../task/{esc(slug(task))}.html#{gs}'>"
                f"{tt['c']}/{tt['n']}</a></td><td>{tt['infra']}</td></tr>"
                for task, tt in sorted(g["tasks"].items()))
            body.append("<h3>tasks (passes / scored runs; each links to the runs)</h3><table><tr><th class=l>task</th>"
                        f"<th class=l>category</th><th class=l>tier</th><th>passes</th><th>infra</th></tr>{cells}</table>")
        (out / "model" / f"{slug(model)}.html").write_text(page(f"model {model}", "\n".join(body), depth=1))


def _compare_page(agg: dict, out: Path) -> None:
    by_key = {g["key"]: g for g in agg["groups"]}
    boards: dict[str, list[dict]] = defaultdict(list)
    for c in agg["comparisons"]:
        boards[c["board"]].append(c)
    body = [f'<div class="note">{esc(TIER_NOTE)} McNemar uses one seed\'s outcomes only (per pair, the seed most '
            'of their common tasks share; the lowest on a tie); pooling every (task, seed) pair would count repeated '
            'runs of a task as independent evidence.</div>']
    name = lambda k: f"{by_key[k]['model']} ({by_key[k]['server']}, {by_key[k]['hardware']})"  # noqa: E731
    for board, comps in sorted(boards.items()):
        body.append(f"<h2>{esc(board)}</h2>")
        body.append(plot_deltas(comps, lambda c: f"{name(c['a'])} - {name(c['b'])}"))
        rows = []
        for c in comps:
            mc = c["mcnemar"] or {}
            seed_note = "" if c["mcnemar_seed"] is None else f" (seed {c['mcnemar_seed']})"
            a_href, b_href = _model_href(by_key[c["a"]]), _model_href(by_key[c["b"]])
            verdict = ("tie: CI crosses zero" if c["crosses_zero"] else
                       ("below the minimum detectable gap" if c.get("below_mdg") else "resolved"))
            rows.append(
                f"<tr><td class=l><a href='{esc(a_href)}'>{esc(name(c['a']))}</a></td>"
                f"<td class=l><a href='{esc(b_href)}'>{esc(name(c['b']))}</a></td><td>{c['tasks']}</td>"
                f"<td><a class='num' href='{esc(b_href)}'>{_signed(c['mean_diff'])}</a></td>"
                f"<td class='ci'>{_signed_ci(c['ci_t'])}</td><td class='ci'>{_signed_ci(c['ci_boot'])}</td>"
                f"<td>{_p(c['p_t'])}</td><td>{mc.get('b', '-')}/{mc.get('c', '-')}{seed_note}</td><td>{_p(mc.get('p_exact'))}</td>"
                f"<td>{_p(mc.get('p_mid'))}</td><td>{'-' if c['mdg'] is None else format(100 * c['mdg'], '.1f')}</td>"
                f"<td class=l>{esc(verdict)}</td><td class=l>{esc(_discordant(c))}</td></tr>")
        body.append("<table><tr><th class=l>A</th><th class=l>B</th><th>tasks</th><th>A-B pts</th><th>paired t 95%</th>"
                    "<th>bootstrap 95%</th><th>p (t)</th><th>McNemar A/B only</th><th>exact p</th><th>mid-p</th>"
                    "<th>min gap pts</th><th class=l>verdict</th><th class=l>discordant tasks by category</th></tr>"
                    + "".join(rows) + "</table>")
    if not agg["comparisons"]:
        body.append("<p>No board has two models yet.</p>")
    (out / "compare.html").write_text(page("Paired comparisons", "\n".join(body)))


def _signed(x) -> str:
    return "-" if x is None else f"{100 * x:+.1f}"


def _signed_ci(ci) -> str:
    return "-" if ci is None else f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]"


def _p(p) -> str:
    return "-" if p is None else f"{p:.3f}"


def _discordant(c: dict) -> str:
    return "; ".join(f"{cat}: A {len(d['a_better'])}, B {len(d['b_better'])}" for cat, d in c["discordant"].items())


def _run_href(a: dict, depth: int) -> str:
    return f"{'../' * depth}run/{slug(a['run_id'])}/{slug(a['condition'])}/{slug(a['task'])}/s{a['seed']}.html"


def _difficulty(agg: dict, task: str) -> tuple[str, str]:
    """The task's flag for the index and a paragraph for its page: the numbers `kbench audit --results` prints."""
    d = agg.get("difficulty") or {"contestants": [], "tasks": {}}
    if len(d["contestants"]) < 2:
        return "", ("<p class='ci'>Difficulty needs gradings of at least 2 contestants (model · agent · condition); "
                    f"the store has {len(d['contestants'])}.</p>")
    t = d["tasks"].get(task)
    if t is None:
        return "", "<p class='ci'>No scored run of this task yet.</p>"
    words = [t["flag"] or ("discriminating" if t["discriminating"] else "not discriminating"),
             "in the 30-70% band" if t["in_band"] else "outside the 30-70% band"]
    rates = "; ".join(f"{esc(c)}: {pct(r)}" for c, r in sorted(t["rates"].items()))
    return ", ".join(words), (f"<p class='difficulty'>Difficulty: mean pass rate {pct(t['mean'])} over "
                              f"{len(t['rates'])} contestants ({esc(', '.join(words))}). Per contestant: {rates}.</p>")


def _task_pages(agg: dict, attempts: list[dict], out: Path, run_pages: set, per_task: int) -> None:
    by_task: dict[str, list[dict]] = defaultdict(list)
    for a in attempts:
        by_task[a["task"]].append(a)
    groups_of_task: dict[str, list[dict]] = defaultdict(list)
    for g in agg["groups"]:
        for task in g["tasks"]:
            groups_of_task[task].append(g)
    (out / "task").mkdir(exist_ok=True)
    index_rows = []
    for task in sorted(groups_of_task):
        body = []
        listed = by_task.get(task, [])
        total_n = sum(g["tasks"][task]["n"] for g in groups_of_task[task])
        total_c = sum(g["tasks"][task]["c"] for g in groups_of_task[task])
        first = next(iter(groups_of_task[task]))["tasks"][task]
        hard = _difficulty(agg, task)
        index_rows.append(f"<tr><td class=l><a href='task/{esc(slug(task))}.html'>{esc(task)}</a></td>"
                          f"<td class=l>{esc(first['category'])}</td><td class=l>{esc(first['tier'])}</td>"
                          f"<td>{total_c}/{total_n}</td><td>{pct(total_c / total_n if total_n else None)}</td>"
                          f"<td class=l>{esc(hard[0])}</td></tr>")
        body.append(hard[1])
        by_group: dict[str, list[dict]] = defaultdict(list)
        for a in listed:
            by_group[board_data.group_key(a)].append(a)
        for g in groups_of_task[task]:
            tt = g["tasks"][task]
            body.append(f'<h2 id="{slug(g["key"])}"><a href="{esc(_model_href(g, 1))}">{esc(g["model"])}</a> · '
                        f'{esc(g["agent"])} · {esc(g["condition"])} · {esc(g["server"])} · {esc(g["hardware"])}: '
                        f'{tt["c"]}/{tt["n"]} passed, {tt["infra"]} infra</h2>')
            rows = []
            if not by_group.get(g["key"]):
                body.append("<p class='ci'>No attempt of this group has a record on this machine: the counts above "
                            "come from the store.</p>")
                continue
            for a in by_group.get(g["key"], []):
                key = (a["run_id"], a["condition"], a["task"], a["seed"])
                cls = "pass" if a["outcome"] == "pass" else ("infra" if a["outcome"] == "infra" else "fail")
                link = (f"<a href='{esc(_run_href(a, 1))}'>trajectory</a>" if key in run_pages else "no record")
                rows.append(f"<tr><td class=l>{esc(a['run_id'])}</td><td>s{a['seed']}</td><td class='l {cls}'>"
                            f"{esc(a['outcome'])}</td><td>{float(a['duration_s'] or 0):.1f}</td><td>{a['turns']}</td>"
                            f"<td>{a['output_tokens']}</td><td>{a['tool_format_errors']}</td>"
                            f"<td class=l>{esc((a['detail'] or '')[:120])}</td><td class=l>{link}</td></tr>")
            body.append("<table><tr><th class=l>run</th><th>seed</th><th class=l>outcome</th><th>time s</th>"
                        "<th>turns</th><th>out tok</th><th>fmt err</th><th class=l>detail</th><th class=l>evidence</th>"
                        f"</tr>{''.join(rows)}</table>")
        if len(listed) >= per_task:
            body.insert(0, f'<p class="note">Only the {per_task} most recent attempts of this task are listed; '
                           'the counts in the headings cover all of them.</p>')
        (out / "task" / f"{slug(task)}.html").write_text(page(f"task {task}", "\n".join(body), depth=1))
    (out / "tasks.html").write_text(page("Tasks", "<table><tr><th class=l>task</th><th class=l>category</th>"
                                                  "<th class=l>tier</th><th>passes / runs</th><th>pass share</th>"
                                                  "<th class=l>difficulty</th></tr>"
                                         + "".join(index_rows) + "</table>"))


def render_conversation(turns: list[dict]) -> str:
    parts = []
    session = None
    for t in turns:
        if t["session"] != session:
            session = t["session"]
            parts.append(f"<h3>session {esc(session)}</h3>")
        kind = t["kind"]
        if kind == "prompt":
            parts.append(f"<div class='turn user'><div class=who>user</div><pre>{esc(t['text'])}</pre></div>")
        elif kind == "assistant":
            think = (f"<details><summary>thinking</summary><pre>{esc(t['reasoning'])}</pre></details>"
                     if t.get("reasoning") else "")
            parts.append(f"<div class='turn assistant'><div class=who>assistant"
                         f"{' (stop: ' + esc(t.get('stop')) + ')' if t.get('stop') else ''}</div>{think}"
                         f"<pre>{esc(t['text'] or '(no text)')}</pre></div>")
        elif kind == "tool_call":
            args = args_text(t["args"])
            parts.append(f"<div class='turn tool_call'><div class=who>tool call: {esc(t['name'])}"
                         f"{' (' + esc(t.get('form')) + ')' if t.get('form') else ''}</div><pre>{esc(args)}</pre></div>")
        elif kind == "tool_result":
            parts.append(f"<div class='turn tool_result'><div class=who>tool result: {esc(t['name'])}"
                         f"{' — error' if t['is_error'] else ''}</div><pre>{esc(t['text'])}</pre></div>")
        else:
            parts.append(f"<div class='turn {esc(kind)}'><div class=who>{esc(kind)}</div><pre>{esc(t['text'])}</pre></div>")
    return "".join(parts) or "<p>(no events)</p>"


def _run_page(a: dict, rec: Path, out: Path) -> None:
    path = out / _run_href(a, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    result = {}
    if (rec / "result.json").exists():
        result = json.loads((rec / "result.json").read_text())
    keys = ("outcome", "detail", "duration_s", "turns", "input_tokens", "output_tokens", "tool_calls", "tool_errors",
            "tool_format_errors", "cutoffs", "agent_timeout", "stop_reason", "false_claim", "watchdog_kills",
            "outside_writes", "infra_error", "server_error", "isolation", "started_at")
    facts = "".join(f"<tr><td class=l>{k}</td><td class=l>{esc(result.get(k, a.get(k)))}</td></tr>" for k in keys)
    files = final_files(rec / "workdir")
    files_html = "".join(_final_file_html(f) for f in files) or "<p>(no files)</p>"
    body = (f"<p><a href='../../../../task/{esc(slug(a['task']))}.html#{slug(board_data.group_key(a))}'>task "
            f"{esc(a['task'])}</a> · run "
            f"{esc(a['run_id'])} · {esc(a['model'])} · {esc(a['agent'])} · condition {esc(a['condition'])} · seed "
            f"{a['seed']} · outcome <strong id='outcome'>{esc(a['outcome'])}</strong></p>"
            f"<table>{facts}</table><h2>Conversation</h2>{render_conversation(conversation(rec / 'events.jsonl'))}"
            f"<h2>Hidden test output</h2><pre id='tests'>{esc(read_text(rec / 'tests.txt')) or '(none)'}</pre>"
            f"<h2>Final files</h2>{files_html}")
    path.write_text(page(f"{a['task']} · {a['run_id']} · {a['condition']} · s{a['seed']}", body, depth=4))


# ---------------------------------------------------------------------------------------------- build, serve

def _final_file_html(f: dict) -> str:
    if f.get("link") is not None:
        return f"<h3>{esc(f['path'])} &rarr; {esc(f['link'])}</h3><p>(a link; not followed)</p>"
    return f"<h3>{esc(f['path'])} ({f['size']} bytes)</h3><pre>{esc(f['text'] if f['text'] is not None else '(binary)')}</pre>"


BOARD_MARK = ".kbench-board"


def _clear_board_dir(out: Path) -> None:
    """Only a folder that holds an earlier board (or nothing) is replaced: a wrong --out must not cost any files."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ValueError(f"{out} is not a folder; choose another --out")
    if not out.exists():
        return
    earlier = (out / BOARD_MARK).is_file() or {"index.html", "compare.html"} <= {q.name for q in out.iterdir()}
    if not earlier and any(out.iterdir()):
        raise ValueError(f"{out} is not empty and holds no board written by kbench; choose an empty or new folder "
                         "for --out (the board replaces its folder on every build)")
    shutil.rmtree(out)


def build_board(store: ResultsStore, out_dir: Path, seed: int = 0, n_boot: int = stats.DEFAULT_BOOT,
                per_task: int = 500, agg: dict | None = None) -> Path:
    """Write the whole site into out_dir (replacing an earlier board there) and return the path of index.html."""
    out = Path(out_dir)
    _clear_board_dir(out)
    out.mkdir(parents=True)
    (out / BOARD_MARK).write_text("written by kbench board; the next build replaces this folder\n")
    agg = agg or board_data.aggregates(store, seed=seed, n_boot=n_boot)
    manifests = board_data.manifests(store)
    harness: dict[str, set] = defaultdict(set)
    for m in manifests:
        harness[m.get("agent")].add(tuple((m.get("versions") or {}).get(k) for k in stats.HARNESS_KEYS))
    board_tasks: dict[str, int] = defaultdict(int)
    for g in agg["groups"]:
        board_tasks[agg["tiers"][g["key"]]["board"]] = max(board_tasks[agg["tiers"][g["key"]]["board"]],
                                                           g["summary"]["tasks"])
    warns = {g["key"]: group_warnings(g, board_tasks[agg["tiers"][g["key"]]["board"]], harness) for g in agg["groups"]}
    attempts = board_data.attempts_for_board(store, per_task=per_task)
    run_pages = set()
    for a in attempts:
        rec = board_data.record_dir(a)
        if rec is not None:
            _run_page(a, rec, out)
            run_pages.add((a["run_id"], a["condition"], a["task"], a["seed"]))
    link = lambda g: _model_href(g)  # noqa: E731
    ordered = sorted(agg["groups"], key=lambda g: (agg["tiers"][g["key"]]["board"], *stats.tier_order(agg["tiers"][g["key"]]),
                                                   -(g["summary"]["pass@1"] or 0), g["key"]))
    body = [_leaderboard(agg, warns), "<h2>Pass rate with intervals</h2>", plot_intervals(ordered, link),
            "<h2>Pass rate against time and tokens</h2><div style='display:flex;gap:2em;flex-wrap:wrap'>",
            plot_scatter(ordered, "mean_time_s", "mean agent time per attempt (s)", link),
            plot_scatter(ordered, "mean_tokens", "mean tokens per attempt (in + out)", link), "</div>"]
    if not agg["groups"]:
        body = ["<p>No results in the store yet.</p>"]
    (out / "index.html").write_text(page("Leaderboard", "\n".join(body), script=FILTER_JS))
    _model_pages(agg, out, warns, run_pages)
    _compare_page(agg, out)
    _task_pages(agg, attempts, out, run_pages, per_task)
    (out / "aggregates.json").write_text(json.dumps(_plain(agg), default=str))
    return out / "index.html"


def _plain(agg: dict) -> dict:
    """The aggregates without the per-task seed maps, for aggregates.json next to the pages."""
    def clean(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items() if k != "seeds"}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v
    return clean(agg)


def serve(out_dir: Path, port: int = 8000) -> None:
    """Serve the written board on 127.0.0.1 until Ctrl-C or SIGTERM."""
    handler = functools.partial(_QuietHandler, directory=str(out_dir))
    try:
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise ValueError(f"cannot serve the board on 127.0.0.1:{port} ({exc.strerror}): "
                         "pick another port with --port") from None
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    with httpd:
        print(f"serving {out_dir} at http://127.0.0.1:{httpd.server_address[1]}/ (Ctrl-C stops)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # a line per request on stderr drowns the one line that matters: where the board is
