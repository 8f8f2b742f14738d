"""The board's tool-use trial pages, from trial_results:

- trials.html: one row per strike (run) graded under this checkout's oracle rules, with the numbers of
  `kbench trials stats` (trial_stats.strike_stats over the rows it reads) overall and per family, and filters kept
  in the URL. Strikes graded under other rules are listed apart, with the command that regrades them.
- trials/<run>.html: per family and grade, a plot of pass@1 per family, the failure causes and every trial row.
- trials/<run>/<trial>.s<sample>.html: the evidence: the request as sent, the kept replies and the verdict.
- atop trials.html the official ranking, and trials/index.html, consensus.html, designer.html: board_trials_more.py.
Everything a model wrote is escaped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from kbench_dagster.commands.trials_report import COLUMNS
from kbench_dagster.reporting import board_trials_more as more
from kbench_dagster.reporting import trial_ranks
from kbench_dagster.reporting.board_html import esc, page, pct, slug
from kbench_dagster.reporting.trial_stats import (
    INFRA_GROUP,
    readable_rows,
    render_oracle,
    render_tokens,
    stale_rules,
    strike_stats,
    triage,
)
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.formats import MODES, POLICIES
from sandbox.chatwork.trials import ToolTrials, replies_of, request_of
from sandbox.judge.parse import Refused, bounded_json
from task_defs.trials.loader import rules_fingerprint

EXTRA = ("run_id", "model", "condition", "endpoint", "hardware_class", "hardware", "engine", "quant",
         "suite_fingerprint", "exchange")
# COLUMNS are what `kbench trials stats` reads, in its order: the pages show that command's numbers
ROWS_SQL = "SELECT " + ", ".join(EXTRA + COLUMNS) + " FROM trial_results ORDER BY run_id, trial, seed"
FILTERS = (("model", "model"), ("endpoint", "endpoint"), ("hardware_class", "hardware class"), ("family", "family"))

# FILTER_JS matches one value per row; a strike holds many families, and choosing one also hides the other
# families' columns, so this page has its own script of the same kind (the filters live in the URL).
TRIALS_JS = """
function kbTrials(){
  var sel={};document.querySelectorAll('.filters select').forEach(function(s){sel[s.name]=s.value;});
  document.querySelectorAll('tr[data-group]').forEach(function(tr){
    var show=true;for(var k in sel){if(!sel[k]){continue;}
      if(k==='family'){if(tr.dataset.families.indexOf('|'+sel[k]+'|')<0){show=false;}}
      else if(tr.dataset[k]!==sel[k]){show=false;}}
    tr.style.display=show?'':'none';});
  document.querySelectorAll('[data-family]').forEach(function(c){
    c.style.display=(!sel.family||c.dataset.family===sel.family)?'':'none';});
  var q=[];for(var k in sel){if(sel[k]){q.push(k+'='+encodeURIComponent(sel[k]));}}
  try{history.replaceState(null,'',q.length?'?'+q.join('&'):location.pathname);}catch(e){}
}
document.addEventListener('DOMContentLoaded',function(){
  var params=new URLSearchParams(location.search);
  document.querySelectorAll('.filters select').forEach(function(s){
    if(params.get(s.name)){s.value=params.get(s.name);}});
  kbTrials();
});
"""


def strikes(store: ResultsStore) -> dict[str, list[dict]]:
    """run_id -> its rows as kbench_dagster.commands.trials_report.strike_rows gives them (sample = seed), with the
    columns the pages show besides."""
    cols, found = store.query(ROWS_SQL)
    out: dict[str, list[dict]] = defaultdict(list)
    for row in found:
        r = dict(zip(cols, row))
        out[r["run_id"]].append({**r, "sample": r["seed"]})
    return dict(out)


def _one(rows: list[dict], key: str) -> str:
    """The strike's value of a column ('-' where none is recorded, several joined)."""
    return ", ".join(sorted({"-" if r[key] in (None, "") else str(r[key]) for r in rows}))


def _interval(ci) -> str:
    return "" if ci is None else f" <span class=ci>[{pct(ci[0])}, {pct(ci[1])}]</span>"


def _value(p, field: str = "") -> str:
    data = "" if p is None else f" data-value='{p!r}'"
    return f"<span data-field='{field}'{data}>{pct(p)}</span>"


def _cls(outcome: str) -> str:
    return "pass" if outcome == "pass" else "infra" if outcome in ("infra", "skipped") else "fail"


def _evidence_href(run_id: str, r: dict) -> str:
    """One page per answer: a strike may hold a trial under several conditions and samples."""
    return f"trials/{slug(run_id)}/{slug(r['condition'] or 'base')}.{slug(r['trial'])}.s{r['sample']}.html"


def trial_pages(store: ResultsStore, out: Path) -> None:
    by_run = strikes(store)
    rules = rules_fingerprint()
    # a row without a verdict (infra, or unreadable) keeps no strike from the page: the strike's page names it
    fresh, notes = {}, {}
    for run, rows in by_run.items():
        if not stale_rules(rows, rules):
            fresh[run], notes[run] = readable_rows(rows, run)
    stale = {run: rows for run, rows in by_run.items() if run not in fresh}
    docs = {run: strike_stats(rows) for run, rows in fresh.items()}
    (out / "trials").mkdir(exist_ok=True)
    suite = ToolTrials()
    measured = trial_ranks.current_suite(suite)  # what an official rank is measured against
    ranked = trial_ranks.official_ranks(trial_ranks.load_strikes(store), measured)
    more.more_pages(fresh, ranked, measured, POLICIES, out)
    if fresh:
        for run, rows in fresh.items():
            _strike_page(run, rows, docs[run], suite, out, notes[run])
    families = sorted({f for d in docs.values() for f in d["families"]})
    values = {f: sorted({_one(rows, f) for rows in by_run.values()}) for f, _ in FILTERS if f != "family"}
    values["family"] = families
    filters = ("<div class=filters>" + "".join(
        f"<label>{label} <select name='{f}' onchange='kbTrials()'><option value=''>all</option>"
        + "".join(f"<option value='{esc(v)}'>{esc(v)}</option>" for v in values[f]) + "</select></label>"
        for f, label in FILTERS) + "</div>")
    head = ("<tr><th class=l>strike</th><th class=l>model</th><th class=l>endpoint</th><th class=l>hardware class</th>"
            "<th class=l>response format</th><th class=l>elicitation</th><th>trials</th><th>samples</th>"
            "<th>pass@1 (95% CI over trials)</th><th>95% CI over shapes</th><th>pass@k</th><th>grade-weighted</th>"
            "<th>attrition</th>" + "".join(f"<th data-family='{esc(f)}'>{esc(f)}</th>" for f in families) + "</tr>")
    body = [more.ranks_section(ranked, set(fresh)), "<h2>Every strike</h2>", filters, "<table id=trials>" + head]
    order = sorted(fresh, key=lambda run: (-(docs[run]["overall"]["pass_at_1"] or 0), run))
    for run in order:
        rows, doc = fresh[run], docs[run]
        o = doc["overall"]
        elicit = _one(rows, "elicitation")
        cells = "".join(
            f"<td data-family='{esc(f)}'>{_value(doc['families'][f]['pass_at_1'], 'pass1')}"
            f"{_interval(doc['families'][f]['pass_at_1_ci'])}</td>" if f in doc["families"]
            else f"<td data-family='{esc(f)}'>–</td>" for f in families)
        body.append(
            f"<tr {_attrs(run, rows, doc)}><td class=l><a href='trials/{slug(run)}.html'>{esc(run)}</a></td>"
            f"<td class=l>{esc(_one(rows, 'model'))}</td><td class=l>{esc(_one(rows, 'endpoint'))}</td>"
            f"<td class=l>{esc(_one(rows, 'hardware_class'))}</td><td class=l>{esc(_one(rows, 'response_format'))}"
            f"</td><td class=l title='{esc(elicit)}'>{esc(', '.join(e[:8] for e in elicit.split(', ')))}</td>"
            f"<td>{o['trials']}</td><td>{o['samples']}</td>"
            f"<td>{_value(o['pass_at_1'], 'pass1')}{_interval(o['pass_at_1_ci'])}</td>"
            f"<td>{_interval(o['clustered_ci'])}</td><td>{_value(o['pass_at_k'], 'passk')} (k={doc['k']})</td>"
            f"<td>{_value(o['weighted'], 'weighted')}</td><td>{_value(o['attrition'], 'attrition')}</td>{cells}</tr>")
    body.append("</table><p class=ci>pass@1: the trial-balanced mean of each trial's pass share over its samples, "
                "with a 95% Wilson interval over trials and, beside it, one over answer shapes (trials asking one "
                "question count once). pass@k: unbiased, over trials with at least k samples. Grade-weighted: easy 1, "
                "medium 2, hard 3. Attrition: the share of samples left out as infra or skipped.</p>")
    if stale:
        body.append("<h2>Graded under other rules</h2><p>These strikes were graded under other oracle rules than "
                    f"this checkout's ({esc(rules[:16])}); their verdicts are not read under these. Regrade with "
                    "<code>kbench regrade RUN</code> (the kept replies are graded again, no server needed).</p>"
                    "<table id=stale><tr><th class=l>strike</th><th class=l>model</th><th>rows</th>"
                    "<th class=l>rules</th><th class=l>to bring up to date</th></tr>")
        for run, rows in sorted(stale.items()):
            body.append(f"<tr {_attrs(run, rows, None)}><td class=l>{esc(run)}</td>"
                        f"<td class=l>{esc(_one(rows, 'model'))}</td><td>{len(rows)}</td>"
                        f"<td class=l>{esc(', '.join(str(r)[:16] for r in sorted({str(r['rules']) for r in rows})))}"
                        f"</td><td class=l><code>kbench regrade {esc(run)}</code></td></tr>")
        body.append("</table>")
    if not by_run:
        body = ["<p>No tool-use trial results in the store yet.</p>", more.LINKS.format(up="")]
    (out / "trials.html").write_text(page("Tool-use trials", "\n".join(body), script=TRIALS_JS))


def _attrs(run: str, rows: list[dict], doc: dict | None) -> str:
    families = "|" + "|".join(doc["families"] if doc else sorted({str(r["family"]) for r in rows})) + "|"
    return (f"data-group='{esc(run)}' data-families='{esc(families)}' "
            + " ".join(f"data-{f}='{esc(_one(rows, f))}'" for f in ("model", "endpoint", "hardware_class")))


def _stat_row(label: str, g: dict, attrs: str) -> str:
    return (f"<tr {attrs}>{label}<td>{g['trials']}</td><td>{g['samples']}</td>"
            f"<td>{_value(g['pass_at_1'], 'pass1')}{_interval(g['pass_at_1_ci'])}</td>"
            f"<td>{_interval(g['clustered_ci'])}</td><td>{_value(g['pass_at_k'], 'passk')}</td>"
            f"<td>{_value(g['weighted'], 'weighted')}</td><td>{_value(g['attrition'], 'attrition')}</td></tr>")


def _strike_page(run: str, rows: list[dict], doc: dict, suite: ToolTrials, out: Path, notes: list[str]) -> None:
    k = doc["k"]
    by_family: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_family[r["family"] or "?"].append(r)
    body = [f"<p>model <b>{esc(_one(rows, 'model'))}</b> on endpoint {esc(_one(rows, 'endpoint'))} "
            f"({esc(_one(rows, 'engine'))}, {esc(_one(rows, 'quant'))}, {esc(_one(rows, 'hardware_class'))}: "
            f"{esc(_one(rows, 'hardware'))}); response format {esc(_one(rows, 'response_format'))}; elicitation "
            f"{esc(_one(rows, 'elicitation'))}; oracle rules {esc(_one(rows, 'rules')[:16])}. "
            "<a href='../trials.html'>all strikes</a></p>",
            "".join(f"<p class=warn>{esc(n)}</p>" for n in notes),
            f"<p id=tokens>{esc(render_tokens(doc['tokens']))}. Rule: {esc(doc['tokens']['rule'])}.</p>",
            f"<p id=oracle-cost>{esc(render_oracle(doc['oracle']))}.</p>",
            "<h2>Per family and grade</h2><table id=grades><tr><th class=l>family</th><th class=l>grade</th>"
            "<th>trials</th><th>samples</th><th>pass@1 (95% CI over trials)</th><th>95% CI over shapes</th>"
            f"<th>pass@{k}</th><th>grade-weighted</th><th>attrition</th></tr>"]
    for family, g in doc["families"].items():
        fam = f"data-family='{esc(family)}'"
        body.append(_stat_row(f"<td class=l><b>{esc(family)}</b></td><td class=l>all</td>", g, f"{fam} data-grade=''"))
        # the same k as the strike's, so a cell's pass@k compares with the rest of the page
        for grade, gg in strike_stats(by_family[family], k=k)["grades"].items():
            body.append(_stat_row(f"<td class=l>{esc(family)}</td><td class=l>{esc(grade)}</td>", gg,
                                  f"{fam} data-grade='{esc(grade)}'"))
    for grade, g in doc["grades"].items():
        body.append(_stat_row(f"<td class=l>all</td><td class=l><b>{esc(grade)}</b></td>", g,
                              f"data-family='' data-grade='{esc(grade)}'"))
    body.append(_stat_row("<td class=l><b>all</b></td><td class=l><b>all</b></td>", doc["overall"],
                          "data-family='' data-grade=''") + "</table>")
    body.append("<h2>pass@1 per family</h2>" + _plot(doc["families"]))
    body.append(_causes(triage(rows)))
    listing = [f"<h2>Every trial</h2>{more.TARGET_CSS}<table id=rows><tr><th class=l>trial</th><th>sample</th>"
               "<th class=l>outcome</th><th class=l>cause</th><th class=l>detail</th><th class=l>format</th>"
               "<th>rounds</th></tr>"]
    seen = set()
    for r in rows:
        href = _evidence_href(run, r)
        anchor = "" if r["trial"] in seen else f" id='{more.anchor(r['trial'])}'"  # #t-... from the trial index
        seen.add(r["trial"])
        _evidence_page(run, r, suite, out / href)
        detail = r["infra_error"] or r["detail"] or ""
        listing.append(f"<tr{anchor}><td class=l><a href='{href.removeprefix('trials/')}'>{esc(r['trial'])}</a></td>"
                       f"<td>{r['sample']}</td>"
                       f"<td class='l {_cls(r['outcome'])}'>{esc(r['outcome'])}</td><td class=l>{esc(r['cause'])}</td>"
                       f"<td class=l>{esc(detail[:160])}</td><td class=l>{esc(r['response_format'])}</td>"
                       f"<td>{esc(r['rounds'])}</td></tr>")
    body.append("\n".join(listing) + "</table>")
    (out / f"trials/{slug(run)}.html").write_text(page(f"trials · {run}", "\n".join(body), depth=1))


def _plot(families: dict[str, dict]) -> str:
    """A bar per family: pass@1, a black whisker for the interval over trials and a grey one over shapes."""
    bar, gap, h = 26, 24, 160
    width = max(1, len(families)) * (bar + gap) + 60
    parts = [f"<svg class=plot width='{width}' height='{h + 40}' role=img aria-label='pass@1 per family'>"]
    y = lambda p: 10 + h * (1 - p)  # noqa: E731
    for i, (family, g) in enumerate(families.items()):
        x = 40 + i * (bar + gap)
        p = g["pass_at_1"]
        if p is not None:
            parts.append(f"<rect x='{x}' y='{y(p):.1f}' width='{bar}' height='{h * p:.1f}' fill='#3465a4'>"
                         f"<title>{esc(family)}: {pct(p)} over {g['trials']} trials</title></rect>")
            for ci, dx, color in ((g["clustered_ci"], bar / 2 + 4, "#999"), (g["pass_at_1_ci"], bar / 2, "#000")):
                parts.append(f"<line x1='{x + dx:.1f}' x2='{x + dx:.1f}' y1='{y(ci[0]):.1f}' y2='{y(ci[1]):.1f}' "
                             f"stroke='{color}' stroke-width='2'/>")
        parts.append(f"<text x='{x}' y='{h + 28}' font-size='11'>{esc(family)}</text>")
    parts.append(f"<line x1='38' x2='38' y1='10' y2='{h + 10}' stroke='#999'/><text x='0' y='16'>100%</text>"
                 f"<text x='12' y='{h + 12}'>0%</text></svg>")
    return "".join(parts) + "<p class=ci>whiskers: black 95% over trials, grey 95% over answer shapes</p>"


def _causes(t: dict) -> str:
    rows = "".join(f"<tr><td class=l>{esc(g['group'])}</td><td>{g['count']}</td><td>{pct(g['share'])}</td>"
                   f"<td class=l>{esc(', '.join(f'{c} {n}' for c, n in g['causes'].items()))}</td></tr>"
                   for g in t["groups"])
    attempts = t["samples"] + t["infra"]
    return (f"<h2>Failure causes</h2><p>{t['failures']} failing of {t['samples']} scored samples.</p>"
            "<table id=causes><tr><th class=l>group</th><th>count</th><th>share</th><th class=l>causes</th></tr>"
            f"{rows}</table><p>{INFRA_GROUP}: {t['infra']} unscored "
            f"({pct(t['infra'] / attempts if attempts else None)} of attempts); skipped: {t['skipped']}</p>")


def _request(r: dict, kept: dict | None, suite: ToolTrials) -> str:
    try:
        unit = suite.get(r["trial"])
    except KeyError:
        return (f"<p class=warn>Trial {esc(r['trial'])} is no longer in the suite: the request it sent cannot be "
                "rebuilt.</p>")
    mode = (kept or {}).get("mode") or r["response_format"] or "text"
    if mode not in MODES:
        return f"<p class=warn>The exchange names an unknown answer format {esc(mode)}: no request is rebuilt.</p>"
    messages, tools, fmt = request_of(unit, r["sample"], mode)
    note = ""
    if r["suite_fingerprint"] != suite.fingerprint:
        note = ("<p class=note>The suite has changed since this row was made: this is the request this checkout "
                "sends for the trial.</p>")
    refused = "".join(f"<li>{esc(x.get('mode'))}: {esc(x.get('error'))}</li>" for x in (kept or {}).get(
        "refused_formats") or [])
    if refused:
        note += f"<p>Before it, the server refused these answer formats:</p><ul>{refused}</ul>"
    doc = {"messages": messages, "tools": tools, "response_format": fmt}
    return (f"{note}<p>answer format {esc(mode)}; later rounds add each reply and a neutral result for each of its "
            f"calls.</p><pre id=request>{esc(json.dumps(doc, indent=1, ensure_ascii=False))}</pre>")


def _arguments(raw) -> str:
    """A call's arguments laid out, or as the model sent them where they are not JSON the judge reads (too deep
    to lay out, or not JSON at all)."""
    try:
        value = bounded_json(raw) if isinstance(raw, str) else raw
        return json.dumps(value, indent=1, ensure_ascii=False)
    except Refused:
        return raw


def _replies(kept: dict | None, raw: str | None) -> str:
    if kept is None:
        return ("<p class=warn>The kept exchange is missing or not readable JSON; as stored:</p>"
                f"<pre>{esc(raw)}</pre>")
    parts = []
    for i, reply in enumerate(replies_of(kept), 1):
        calls = "".join(f"<div class='turn tool_call'><div class=who>call {esc(c.get('name'))}</div>"
                        f"<pre class=args>{esc(_arguments(c.get('arguments')))}</pre></div>"
                        for c in reply.get("tool_calls") or [])
        error = f"<p class=warn>error: {esc(reply['error'])}</p>" if reply.get("error") else ""
        parts.append(f"<div class='turn assistant'><div class=who>reply {i}, finish {esc(reply.get('finish'))}</div>"
                     f"<pre class=content>{esc(reply.get('content'))}</pre>{calls}{error}</div>")
    return "".join(parts) or "<p>No reply was kept.</p>"


def _evidence_page(run: str, r: dict, suite: ToolTrials, path: Path) -> None:
    try:
        kept = json.loads(r["exchange"]) if r["exchange"] else None
    except ValueError:
        kept = None
    kept = kept if isinstance(kept, dict) else None
    verdict = (f"<p>outcome <b id=outcome class={_cls(r['outcome'])}>{esc(r['outcome'])}</b>, cause "
               f"<b id=cause>{esc(r['cause'] or '-')}</b>, score {esc(r['score'])}; family {esc(r['family'])}, grade "
               f"{esc(r['grade'])}, answer shape {esc(r['shape'])}, calls {esc(r['forms'] or 'none')}, "
               f"{esc(r['rounds'])} replies</p><pre id=detail>{esc(r['infra_error'] or r['detail'])}</pre>")
    body = (f"<p>strike <a href='../{slug(run)}.html'>{esc(run)}</a>, model {esc(r['model'])}, sample "
            f"{r['sample']}</p><h2>Verdict</h2>{verdict}<h2>The request as sent</h2>{_request(r, kept, suite)}"
            f"<h2>The replies kept</h2>{_replies(kept, r['exchange'])}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page(f"{r['trial']} s{r['sample']} · {run}", body, depth=2))
