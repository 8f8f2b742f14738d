"""The board's tool-use trial pages beyond a strike's own (board_trials.py calls these):

- the official ranking (trial_ranks.official_ranks) atop trials.html, with every strike not ranked and why;
- trials/index.html: every trial's rows across the strikes graded under this checkout's rules, filtered by the URL
  (?trial=ID shows and highlights one trial; family, grade, strike and verdict likewise), each row linking to the
  trial's rows on its strike's page (an anchor there, TARGET_CSS);
- trials/consensus.html: over the ranked strikes' common trials, the ones every ranked model passes, every one
  fails, and the ones they disagree on with each model's verdict, per family;
- trials/designer.html: a form whose script builds the exact `kbench trials run` command to copy.
Everything a model or a user named (model ids, run ids, trial ids) is escaped.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from urllib.parse import quote

from kbench_dagster.reporting.board_html import esc, page, pct, slug
from kbench_dagster.reporting.trial_ranks import Suite, consensus
from kbench_dagster.reporting.trial_stats import UNSCORED

LINKS = ("<p class=links>Also: <a href='{up}trials/index.html'>every trial across strikes</a> · "
         "<a href='{up}trials/consensus.html'>consensus of the ranked models</a> · "
         "<a href='{up}trials/designer.html'>strike designer</a></p>")

# trials/index.html: the filters (selects and the trial box) live in the URL; ?trial=ID shows that trial's rows
INDEX_JS = r"""
function kbIndex(){
  var sel={};document.querySelectorAll('.filters [name]').forEach(function(s){sel[s.name]=s.value.trim();});
  var shown=0;
  document.querySelectorAll('tr[data-trial]').forEach(function(tr){
    var show=true;for(var k in sel){if(sel[k]&&tr.dataset[k]!==sel[k]){show=false;}}
    tr.style.display=show?'':'none';tr.style.background=(show&&sel.trial)?'#fff3b0':'';if(show){shown++;}});
  document.getElementById('shown').textContent=String(shown);
  document.getElementById('none').style.display=shown?'none':'';
  var q=[];for(var k in sel){if(sel[k]){q.push(k+'='+encodeURIComponent(sel[k]));}}
  try{history.replaceState(null,'',q.length?'?'+q.join('&'):location.pathname);}catch(e){}
}
document.addEventListener('DOMContentLoaded',function(){
  var params=new URLSearchParams(location.search);
  document.querySelectorAll('.filters [name]').forEach(function(s){
    if(params.get(s.name)){s.value=params.get(s.name);}});
  kbIndex();
});
"""

# a strike's page keeps no script (whatever a model wrote is there): a trial's first row is an anchor, #t-<slug>,
# highlighted when it is the address's target; the trial index links each strike there
TARGET_CSS = "<style>tr:target{background:#fff3b0}</style>"


def anchor(trial) -> str:
    return f"t-{slug(str(trial))}"


# trials/designer.html: kbShq quotes a word for Bash/zsh (single quotes, a quote inside as '\''); kbDesign is pure
# (a test runs it under node), kbDesigner reads the form into it
DESIGNER_JS = r"""
function kbShq(s){return "'"+String(s).split("'").join("'\\''")+"'";}
function kbDesign(v){
  var words=['kbench','trials','run'],problems=[],notes=[];
  function str(flag,val,check,what){val=String(val||'');if(!val){return;}
    if(/[\u0000-\u001f\u007f]/.test(val)){problems.push(flag+': control characters cannot be copied safely');return;}
    if(check&&!check.test(val)){problems.push(flag+' '+what);return;}
    words.push(flag+'='+kbShq(val));}
  function num(flag,val,re,what){val=String(val==null?'':val).trim();if(!val){return;}
    if(!re.test(val)){problems.push(flag+' must be '+what);return;}words.push(flag+'='+val);}
  str('--url',v.url,/^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?(\/[^\s?#]*)?$/,
      'must be http(s)://host[:port][/path]: no credentials, query string or fragment');
  str('--model',v.model);
  num('--samples',v.samples,/^[1-9][0-9]*$/,'a whole number from 1');
  num('--temperature',v.temperature,/^[0-9]+(\.[0-9]+)?$/,'a number from 0');
  num('--seed',v.seed,/^[0-9]+$/,'a whole number from 0');
  if(v.format){if(kbFormats.indexOf(v.format)<0){problems.push('--response-format must be one of '+
    kbFormats.join(', '));}else{words.push('--response-format='+v.format);}}
  var fams=(v.families||[]).filter(function(f){return kbFamilies.indexOf(f)>=0;});
  if(fams.length&&fams.length<kbFamilies.length){words.push('--only='+kbShq(fams.join(',')));
    notes.push('--only: a family slice does not qualify for the official ranking');}
  num('--limit',v.limit,/^[1-9][0-9]*$/,'a whole number from 1');
  if(String(v.limit||'').trim()){notes.push('--limit: a slice does not qualify for the official ranking');}
  num('--sample',v.sample,/^[1-9][0-9]*$/,'a whole number from 1');
  if(String(v.sample||'').trim()){notes.push('--sample: a slice does not qualify for the official ranking');}
  if(String(v.limit||'').trim()&&String(v.sample||'').trim()){problems.push('give --limit or --sample, not both');}
  str('--run-id',v.runId);
  var out=String(v.out||'').trim()||'strike.json';
  if(out.charAt(0)==='-'){out='./'+out;}
  if(/[\u0000-\u001f\u007f]/.test(out)){problems.push('OUT.json: control characters cannot be copied safely');}
  words.push(kbShq(out));
  return {command:words.join(' '),problems:problems,notes:notes};
}
function kbDesigner(){
  var f=document.getElementById('designer'),v={families:[]};
  f.querySelectorAll('[name]').forEach(function(e){
    if(e.name==='families'){if(e.checked){v.families.push(e.value);}}else{v[e.name]=e.value;}});
  var d=kbDesign(v),cmd=document.getElementById('command');
  cmd.textContent=d.command;cmd.style.opacity=d.problems.length?'0.4':'';
  var list=document.getElementById('problems');list.textContent='';
  d.problems.concat(d.notes).forEach(function(p,i){var li=document.createElement('li');li.textContent=p;
    li.className=i<d.problems.length?'warn':'';list.appendChild(li);});
}
if(typeof document!=='undefined'){document.addEventListener('DOMContentLoaded',function(){
  var f=document.getElementById('designer');f.addEventListener('input',kbDesigner);kbDesigner();
  document.getElementById('copy').addEventListener('click',function(){
    if(navigator.clipboard){navigator.clipboard.writeText(document.getElementById('command').textContent);}});
});}
"""


def _q(text: str) -> str:
    """A value for a URL's query, escaped for an HTML attribute."""
    return esc(quote(str(text), safe=""))


def ranks_section(doc: dict, pages: set[str]) -> str:
    """The official ranking for trials.html, then every strike not ranked with its reasons."""
    def strike(run: str) -> str:
        return f"<a href='trials/{slug(run)}.html'>{esc(run)}</a>" if run in pages else esc(run)

    s = doc["suite"]
    parts = ["<h2>Official ranking</h2>",
             f"<p>{esc(doc['rule'])} Suite {esc(s['fingerprint'][:12])} ({s['trials']} trials in "
             f"{len(s['families'])} families), oracle rules {esc(s['rules'][:12])}; "
             "<code>kbench trials ranks</code> prints the same.</p>"]
    if doc["ranked"]:
        parts.append("<table id=ranks><tr><th>rank</th><th class=l>model</th><th class=l>strike</th><th>pass@1</th>"
                     "<th>grade-weighted</th><th>pass@k</th><th>trials</th><th>samples</th><th>tokens/sample "
                     "(prompt, completion)</th><th class=l>made</th></tr>")
        for e in doc["ranked"]:
            t = e["tokens"]
            tokens = "–" if t["prompt_mean"] is None else f"{t['prompt_mean']:.0f}, {t['completion_mean']:.0f}"
            parts.append(f"<tr data-rank='{e['rank']}' data-run='{esc(e['run_id'])}'><td>{e['rank']}</td>"
                         f"<td class=l>{esc(e['model'])}</td><td class=l>{strike(e['run_id'])}</td>"
                         f"<td>{pct(e['pass_at_1'])}</td><td>{pct(e['weighted'])}</td>"
                         f"<td>{pct(e['pass_at_k'])} (k={e['k']})</td><td>{e['trials']}</td><td>{e['samples']}</td>"
                         f"<td>{tokens}</td><td class=l>{esc(e['created'])}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p id=ranks>No strike qualifies yet.</p>")
    if doc["excluded"]:
        parts.append("<h3>Not ranked</h3><table id=unranked><tr><th class=l>strike</th><th class=l>model</th>"
                     "<th class=l>why</th></tr>")
        for e in doc["excluded"]:
            reasons = "".join(f"<li>{esc(r)}</li>" for r in e["reasons"])
            parts.append(f"<tr data-run='{esc(e['run_id'])}'><td class=l>{strike(e['run_id'])}</td>"
                         f"<td class=l>{esc(e['model'])}</td><td class=l><ul>{reasons}</ul></td></tr>")
        parts.append("</table>")
    return "\n".join(parts) + LINKS.format(up="")


def _verdict(rows: list[dict]) -> tuple[str, str]:
    scored = [r for r in rows if r["outcome"] not in UNSCORED]
    passed = sum(r["outcome"] == "pass" for r in scored)
    verdict = ("unscored" if not scored else "pass" if passed == len(scored) else "fail" if not passed
               else "mixed")
    return verdict, f"{passed}/{len(scored)}"


def index_page(fresh: dict[str, list[dict]], out: Path) -> None:
    """trials/index.html: a row per trial and strike, each sample linked to its evidence."""
    from kbench_dagster.reporting.board_trials import _cls, _evidence_href

    cells: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for run, rows in fresh.items():
        for r in rows:
            cells[(str(r["trial"]), run)].append(r)
    keys = sorted(cells)
    choices = {"family": sorted({str(c[0]["family"]) for c in cells.values()}),
               "grade": sorted({str(c[0]["grade"]) for c in cells.values()}),
               "strike": sorted(fresh), "verdict": ["pass", "fail", "mixed", "unscored"]}
    filters = ("<div class=filters><label>trial <input name=trial list=trial-ids onchange='kbIndex()'></label> "
               + "".join(f"<label>{k} <select name={k} onchange='kbIndex()'><option value=''>all</option>"
                         + "".join(f"<option value='{esc(v)}'>{esc(v)}</option>" for v in vs) + "</select></label>"
                         for k, vs in choices.items())
               + "<datalist id=trial-ids>" + "".join(f"<option value='{esc(t)}'>" for t in sorted({k[0] for k in keys}))
               + "</datalist></div>")
    body = [LINKS.format(up="../"), "<p>Every trial's rows in every strike graded under this checkout's oracle rules; "
            "<code>?trial=ID</code> in the address shows one trial across strikes, and every filter is kept in the "
            "address. A sample's mark links to its evidence.</p>", filters,
            "<p><span id=shown></span> rows shown. <span id=none class=warn style='display:none'>No rows match: "
            "the trial may not be in any strike.</span></p>",
            "<table id=index><tr><th class=l>trial</th><th class=l>family</th><th class=l>grade</th>"
            "<th class=l>strike</th><th class=l>model</th><th class=l>samples</th><th>passed</th></tr>"]
    for trial, run in keys:
        rows = sorted(cells[(trial, run)], key=lambda r: (str(r["condition"]), r["sample"]))
        verdict, share = _verdict(rows)
        r0 = rows[0]
        marks = " ".join(f"<a class={_cls(r['outcome'])} href='{esc(_evidence_href(run, r).removeprefix('trials/'))}' "
                         f"title='{esc(r['outcome'])}'>s{r['sample']}</a>" for r in rows)
        body.append(f"<tr data-trial='{esc(trial)}' data-family='{esc(r0['family'])}' data-grade='{esc(r0['grade'])}' "
                    f"data-strike='{esc(run)}' data-verdict='{verdict}'><td class=l><a href='?trial={_q(trial)}'>"
                    f"{esc(trial)}</a></td><td class=l>{esc(r0['family'])}</td><td class=l>{esc(r0['grade'])}</td>"
                    f"<td class=l><a href='{slug(run)}.html#{anchor(trial)}'>{esc(run)}</a></td>"
                    f"<td class=l>{esc(r0['model'])}</td><td class=l>{marks}</td><td>{share}</td></tr>")
    body.append("</table>")
    (out / "trials/index.html").write_text(page("Trials across strikes", "\n".join(body), depth=1, script=INDEX_JS))


def consensus_page(doc: dict, suite: Suite, out: Path) -> dict:
    """trials/consensus.html; returns the consensus it shows."""
    c = consensus(doc, suite)
    body = [LINKS.format(up="../")]
    if not c["runs"]:
        body.append("<p>No strike qualifies for the <a href='../trials.html'>official ranking</a> yet: the consensus "
                    "is taken over the ranked models only.</p>")
        (out / "trials/consensus.html").write_text(page("Consensus of the ranked models", "\n".join(body), depth=1))
        return c
    models = ", ".join(f"<a href='{slug(run)}.html'>{esc(model)}</a>" for run, model in c["runs"])
    body.append(f"<p>Ranked models: {models}. Over the {c['common']} trials every one of them has a verdict on "
                "(each strike's first sample, as <code>kbench trials compare</code> pairs them): the trials every "
                "model passes, every one fails, and the ones they disagree on.</p>")
    if len(c["runs"]) < 2:
        body.append("<p class=note>Only one model is ranked: nobody to disagree with yet.</p>")
    head = "<tr><th class=l>family</th><th>common</th><th>all pass</th><th>all fail</th><th>disagree</th></tr>"
    rows = [f"<tr data-cfamily='{esc(f)}'><td class=l>{esc(f)}</td><td>{g['common']}</td><td>{g['all_pass']}</td>"
            f"<td>{g['all_fail']}</td><td>{g['disagree']}</td></tr>" for f, g in c["families"].items()]
    rows.append(f"<tr data-cfamily=''><td class=l><b>all</b></td><td>{c['common']}</td><td>{len(c['all_pass'])}</td>"
                f"<td>{len(c['all_fail'])}</td><td>{len(c['disagree'])}</td></tr>")
    body.append("<h2>Per family</h2><table id=consensus>" + head + "".join(rows) + "</table>")
    cols = "".join(f"<th class=l title='{esc(run)}'>{esc(model)}</th>" for run, model in c["runs"])
    body.append(f"<h2>Where they disagree ({len(c['disagree'])})</h2><table id=disagree><tr><th class=l>trial</th>"
                f"<th class=l>family</th>{cols}</tr>")
    for d in c["disagree"]:
        verdicts = "".join(f"<td class='l {v}'>{v}</td>" for v in d["verdicts"].values())
        body.append(f"<tr data-trial='{esc(d['trial'])}'><td class=l><a href='index.html?trial={_q(d['trial'])}'>"
                    f"{esc(d['trial'])}</a></td><td class=l>{esc(d['family'])}</td>{verdicts}</tr>")
    body.append("</table>")
    for key, title in (("all_pass", "Every model passes"), ("all_fail", "Every model fails")):
        links = " ".join(f"<a href='index.html?trial={_q(t)}'>{esc(t)}</a>" for t in c[key])
        body.append(f"<details id={key}><summary>{title} ({len(c[key])})</summary><p>{links}</p></details>")
    (out / "trials/consensus.html").write_text(page("Consensus of the ranked models", "\n".join(body), depth=1))
    return c


def designer_page(suite: Suite, formats: tuple[str, ...], out: Path) -> None:
    """trials/designer.html: the options offered are `kbench trials run`'s own."""
    import json

    data = (f"var kbFamilies={json.dumps(suite.families)};var kbFormats={json.dumps(list(formats))};"
            .replace("<", "\\u003c"))
    fams = "".join(f"<label><input type=checkbox name=families value='{esc(f)}' checked> {esc(f)}</label> "
                   for f in suite.families)
    opts = "".join(f"<option value='{esc(f)}'>{esc(f)}</option>" for f in formats)

    def field(name: str, label: str, hint: str, kind: str = "text") -> str:
        return (f"<tr><th class=l><label for=f-{name}>{label}</label></th><td class=l><input id=f-{name} name={name} "
                f"type={kind} size=40></td><td class=l>{hint}</td></tr>")

    form = ("<form id=designer onsubmit='return false'><table>"
            + field("url", "endpoint URL", "<code>--url</code>, an OpenAI-compatible base URL (default: "
                    "http://127.0.0.1:8093/v1); no credentials, query string or fragment")
            + field("model", "model", "<code>--model</code>, the id as the server knows it (default: the server's "
                    "first); quoted for Bash whatever it holds")
            + field("samples", "samples", "<code>--samples</code>: attempts of each trial (default 1)")
            + field("temperature", "temperature", "<code>--temperature</code> (default: the server's)")
            + field("seed", "seed", "<code>--seed</code>: sample k sends seed + k (default: the server's)")
            + f"<tr><th class=l>response format</th><td class=l><select name=format>{opts}</select></td>"
            "<td class=l><code>--response-format</code>: auto steps down only on an explicit refusal</td></tr>"
            + f"<tr><th class=l>families</th><td class=l>{fams}</td><td class=l><code>--only</code> when some are "
            "left out</td></tr>"
            + field("limit", "limit", "<code>--limit</code>: the first K trials of each family")
            + field("sample", "sample", "<code>--sample</code>: a stratified K of each family (over its grades, "
                    "hand-written and generated)")
            + field("runId", "run id", "<code>--run-id</code> (default trials-MODEL; the same id resumes)")
            + field("out", "OUT.json", "where the figures go (default strike.json)")
            + "</table></form>")
    body = [LINKS.format(up="../"),
            "<p>Fill in the strike; the command below is built as you type, every value quoted for Bash or zsh "
            "(single quotes; a quote inside becomes <code>'\\''</code>). The API key is read from "
            "<code>KBENCH_API_KEY</code> in the environment, never from an argument. Only an unfiltered strike (all "
            "families, no limit) can take an <a href='../trials.html'>official rank</a>.</p>", form,
            "<pre id=command></pre><button id=copy type=button>copy</button><ul id=problems></ul>",
            "<p class=ci>Offered: every option here is one of <code>kbench trials run</code>'s. Not offered: "
            "PowerShell quoting, and options the form leaves at their defaults (--workers, --timeout, --top-p, "
            "--endpoint, --cache); add them by hand.</p>"]
    (out / "trials/designer.html").write_text(page("Strike designer", "\n".join(body), depth=1,
                                                   script=data + DESIGNER_JS))


def more_pages(fresh: dict[str, list[dict]], doc: dict, suite: Suite, formats: tuple[str, ...], out: Path) -> None:
    (out / "trials").mkdir(exist_ok=True)
    index_page(fresh, out)
    consensus_page(doc, suite, out)
    designer_page(suite, formats, out)
