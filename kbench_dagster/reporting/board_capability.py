"""The board's two capability pages:

- thinks.html: the capability composite (task_defs/capability/scoring.py score_model) per model x endpoint x
  hardware class, from the chat items' rows of the current suite and the agent categories' gradings;
- judge-bias.html: each judge's verdicts on the same replies, their agreement and lean per model
  (kbench_dagster/reporting/judge_bias.py);
- ships.html: agent work that ships: the kbench tasks and the capability agentic/repo_patch tasks, each task's
  pass share averaged over the harnesses that ran it, saturated tasks listed and left out.

thinks_rows and ships_rows return the numbers; the pages are rendered from them only, so a test can hold the
pages against its own arithmetic. Everything from the store is escaped.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting.board_data import GRADINGS_SQL
from kbench_dagster.reporting.board_html import esc, page, pct
from kbench_dagster.reporting.board_rules import era, ranked_by, ranking_groups, shared_ranks
from kbench_dagster.reporting.board_style import FILTER_JS
from kbench_dagster.reporting.judge_bias import bias_study, judge_bias_page, same_family_judges
from kbench_dagster.store import ResultsStore
from task_defs.capability.loader import fingerprint, load_categories
from task_defs.capability.models import AGENT, CATEGORIES, SHIPS
from task_defs.capability.scoring import SATURATED, item_scores, paired_tiers, score_model
from task_defs.loader import suite_root
from task_defs.vocabulary import SCORED

KEYS = ("model", "endpoint", "hardware_class")
# the same spelling of a missing endpoint or class in both tables, so a model's Thinks and Ships rows pair up
CHAT_SQL = """
SELECT model, COALESCE(endpoint, 'unnamed') AS endpoint, COALESCE(hardware_class, 'unknown') AS hardware_class,
       item, category, tier, seed, score, outcome, refusal, duration_s, latency_budget_s, judge
FROM capability_results WHERE suite_fingerprint = ?"""
# an attempt's latest grading (a regrade may leave more than one row), as the leaderboard reads it
AGENT_SQL = f"""
WITH g AS ({GRADINGS_SQL})
SELECT a.model, COALESCE(a.endpoint, 'unnamed') AS endpoint, COALESCE(a.hardware_class, 'unknown') AS hardware_class,
       a.agent, a.task, a.seed, a.duration_s, a.latency_budget_s, COALESCE(g.outcome, a.outcome) AS outcome,
       a.suite_fingerprint
FROM attempts a LEFT JOIN g USING (run_id, condition, task, seed)
WHERE list_contains(?, a.task)"""
HARNESSES = ("pi", "builtin")
MIN_MODELS_RHO = 5
MIN_RUNS = 2
BOOT, BOOT_SEED = 2000, 11

THINKS_NOTE = ("Rows on CPU and entry-GPU hardware are ranked apart from the others, by usability (every item, a "
               "timeout or refusal as 0); the others ranked by the composite; the era (the suite version) is on every "
               "row. Ranked by the composite: the equal mean of the category means; each category weighs 1/N, N being "
               "the categories the row has graded items in (the table below lists each mean and weight). An item's "
               "score is the median of its runs; refused items are left out of the composite and count 0 in "
               "usability, as do runs slower than the latency budget their run recorded (--latency-budget). "
               "Completion: runs that did not time out and kept inside that budget. Judge "
               "failed: runs the LLM judge could not grade (unreachable, or no answer in its form after its retries), "
               "left out like pending ones, never scored as the model's; a regrade with a working judge grades them. "
               "Same-family judge: judged items where a judge of the model's own family (its maker) cast a vote, "
               "flagged because a judge may favour its maker's models (the judge-bias page measures it). "
               "The chat items count under this checkout's suite fingerprint only; the agent categories (agentic, "
               "repo_patch, ci_repair) add their gradings on the same model, endpoint and hardware class, a pass as "
               "1 and anything else as 0. A tie mark: the gap to the next row is below the larger of the two rows' "
               "minimum detectable gaps, so the suite cannot order them. Tiers (T1, T2, ...): a row shares its tier "
               "while the paired 95% interval of its per-item differences from the tier's first row crosses zero; "
               "order inside a tier is display order, not a measured difference.")
SHIPS_NOTE = ("Ranks rows by Ships: the mean, over the tasks that are not saturated, of each task's score. A task's "
              "score is the mean over the harnesses that ran it of that harness's pass share over its graded runs "
              "(pass, wrong, crash, timeout, nofile; infra, skipped and pending left out), so a task two harnesses "
              "ran weighs the same as one that one harness ran. Means, not medians. Tasks: the kbench suite and the "
              "capability agentic and repo_patch tasks (ci_repair and the chat items are not here). "
              "Rows are ranked within their era (the suite versions their runs were made under), never across; "
              "a rank marked = shares the number of the row above: the paired gap over the tasks both counted is "
              "below the smallest gap those tasks can detect at power 0.80 (5%, two-sided). A task is saturated "
              f"when at least 2 models ran it and every row scores {SATURATED:.2f} or more on it: it is "
              f"listed below and left out of every row. A row is provisional until each of its tasks has {MIN_RUNS} "
              "graded runs or more.")


def agent_categories() -> dict[str, tuple[str, str]]:
    """task id -> (category, tier) of the capability suite's agent tasks."""
    return {fx.task_id: (doc.category, "hard" if "hard" in fx.tags else "normal")
            for doc, _ in load_categories() if doc.category in AGENT for fx in doc.tasks}


def kbench_tasks() -> set[str]:
    """The kbench suite's task ids: each task folder is named by its id (the loader refuses any other name), so
    the folders say it without loading and validating every task for a page."""
    root = suite_root("kbench")
    return {p.name for p in root.iterdir() if (p / "task.toml").is_file()} if root.is_dir() else set()


def _dicts(store: ResultsStore, sql: str, params: list) -> list[dict]:
    cols, found = store.query(sql, params)
    return [dict(zip(cols, r)) for r in found]


def _key(r: dict) -> tuple[str, str, str]:
    return tuple(str(r[k]) for k in KEYS)


def thinks_rows(store: ResultsStore, agent_tasks: dict[str, tuple[str, str]] | None = None,
                suite_fingerprint: str | None = None) -> list[dict]:
    """One dict per model x endpoint x hardware class with chat rows under the suite fingerprint: score_model's
    figures, the row counts, and `tie_next` (too close to the next row to order), ranked by the composite."""
    agent_tasks = agent_categories() if agent_tasks is None else agent_tasks
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in _dicts(store, CHAT_SQL, [suite_fingerprint or fingerprint()]):
        groups[_key(r)].append(r)
    agent_rows: dict[tuple, int] = defaultdict(int)
    if agent_tasks and groups:
        for r in _dicts(store, AGENT_SQL, [sorted(agent_tasks)]):
            key = _key(r)
            if key not in groups:  # a row of the page is a chat row group; agent work alone makes no composite
                continue
            category, tier = agent_tasks[r["task"]]
            groups[key].append({"model": r["model"], "item": r["task"], "category": category, "tier": tier,
                                "seed": r["seed"], "score": 1.0 if r["outcome"] == "pass" else 0.0,
                                "outcome": r["outcome"], "refusal": False, "duration_s": r["duration_s"],
                                "latency_budget_s": r["latency_budget_s"]})
            agent_rows[key] += 1
    rows = []
    for key, found in groups.items():
        own = [(r["item"], j) for r in found if r.get("judge") for j in same_family_judges(r["model"], r["judge"])]
        rows.append({**dict(zip(KEYS, key)), "key": " · ".join(key), "rows": len(found),
                     "agent_rows": agent_rows[key], **score_model(found),
                     "same_family_items": sorted({i for i, _ in own}),
                     "same_family_judges": sorted({j for _, j in own})})
    now = era([suite_fingerprint or fingerprint()])  # the page shows the current suite's rows only: one era
    for r in rows:
        r["ranked_by"], r["era"] = ranked_by(r["hardware_class"]), now
        r["headline"] = r[r["ranked_by"]]
    ordered = []
    for _, group in ranking_groups(rows, lambda r: (r["ranked_by"], r["era"])):
        group.sort(key=lambda r: (r["headline"] is None, -(r["headline"] or 0.0), r["key"]))
        tiers = paired_tiers([item_scores(groups[(r["model"], r["endpoint"], r["hardware_class"])]) for r in group])
        for rank, (r, tier) in enumerate(zip(group, tiers), 1):
            r["rank"], r["tier"] = rank, tier
        for a, b in zip(group, [*group[1:], None]):  # the composite's gap: the usability groups mark no ties
            gaps = [g for g in (a["min_detectable_gap"], b and b["min_detectable_gap"]) if g is not None]
            a["tie_next"] = bool(b and a["ranked_by"] == "composite" and a["composite"] is not None and gaps
                                 and b["composite"] is not None and a["composite"] - b["composite"] < max(gaps))
        ordered += group
    return ordered


def _mean(xs) -> float | None:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def _ranks(xs: list[float]) -> list[float]:
    """1-based ranks, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r of the ranks (so ties are handled); None when either side has no spread."""
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = _mean(rx), _mean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return None if not sxx or not syy else sxy / (sxx * syy) ** 0.5


def paired_spread(diffs: list[float]) -> dict:
    """The mean of per-task differences and a 95% percentile interval from resampling tasks, with a fixed seed so
    a rebuild shows the same interval."""
    rng = random.Random(BOOT_SEED)
    draws = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(BOOT))
    return {"mean": sum(diffs) / len(diffs), "ci": (draws[int(0.025 * BOOT)], draws[int(0.975 * BOOT) - 1]),
            "tasks": len(diffs)}


def ships_rows(store: ResultsStore, agent_tasks: dict[str, tuple[str, str]] | None = None,
               kbench: set[str] | None = None, thinks: list[dict] | None = None) -> dict:
    """The Ships figures: `rows` (ranked; `ships` None where no task counts), `saturated` (task -> each row's
    score), `tasks` (every task any row ran), `spearman` against the Thinks composite."""
    agent_tasks = agent_categories() if agent_tasks is None else agent_tasks
    eligible = (kbench_tasks() if kbench is None else set(kbench)) | {
        t for t, (cat, _) in agent_tasks.items() if cat in SHIPS}
    thinks = thinks_rows(store, agent_tasks) if thinks is None else thinks
    runs: dict[tuple, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    fingerprints: dict[tuple, set] = defaultdict(set)
    for r in _dicts(store, AGENT_SQL, [sorted(eligible)]):
        if r["outcome"] in SCORED:
            runs[_key(r)][r["task"]][r["agent"]].append(1.0 if r["outcome"] == "pass" else 0.0)
            fingerprints[_key(r)].add(r["suite_fingerprint"])
    per_row: dict[tuple, dict[str, dict]] = {}
    for key, tasks in runs.items():
        per_row[key] = {task: {"harness": {h: {"runs": len(v), "mean": sum(v) / len(v)} for h, v in hs.items()},
                               "runs": sum(len(v) for v in hs.values()),
                               "score": _mean(sum(v) / len(v) for v in hs.values())}
                        for task, hs in tasks.items()}
    by_task: dict[str, dict[tuple, float]] = defaultdict(dict)
    for key, tasks in per_row.items():
        for task, t in tasks.items():
            by_task[task][key] = t["score"]
    saturated = {task: scores for task, scores in by_task.items()
                 if len({k[0] for k in scores}) >= 2 and all(s >= SATURATED for s in scores.values())}
    composite = {(r["model"], r["endpoint"], r["hardware_class"]): r["composite"] for r in thinks}
    rows = []
    for key in sorted(set(per_row) | set(composite)):
        tasks = per_row.get(key, {})
        counted = {t: v for t, v in tasks.items() if t not in saturated}
        diffs = [v["harness"]["pi"]["mean"] - v["harness"]["builtin"]["mean"] for _, v in sorted(counted.items())
                 if all(h in v["harness"] for h in HARNESSES)]
        rows.append({**dict(zip(KEYS, key)), "key": " · ".join(key), "tasks": tasks, "counted": sorted(counted),
                     "era": era(fingerprints.get(key, ())), "rank": None,
                     "ships": _mean(v["score"] for v in counted.values()),
                     "provisional": any(v["runs"] < MIN_RUNS for v in counted.values()),
                     "harnesses": sorted({h for v in tasks.values() for h in v["harness"]}),
                     "spread": paired_spread(diffs) if diffs else None, "composite": composite.get(key)})
    rows.sort(key=lambda r: (r["ships"] is None, -(r["ships"] or 0.0), r["key"]))
    ordered = []
    for _, group in ranking_groups(rows, lambda r: (r["era"],)):
        ranked = [r for r in group if r["ships"] is not None]
        for r, rank in zip(ranked, shared_ranks([{t: r["tasks"][t]["score"] for t in r["counted"]} for r in ranked])):
            r.update(rank=rank["rank"], rank_shared=rank["shared"], gap_above=rank["gap"], mde_above=rank["mde"],
                     tasks_above=rank["tasks"])
        ordered += ranked + [r for r in group if r["ships"] is None]
    rows = ordered
    both = [r for r in rows if r["ships"] is not None and r["composite"] is not None]
    rho = spearman([r["ships"] for r in both], [r["composite"] for r in both]) if len(both) >= MIN_MODELS_RHO else None
    return {"rows": rows, "saturated": {t: saturated[t] for t in sorted(saturated)}, "tasks": sorted(by_task),
            "spearman": {"models": len(both), "rho": rho}}


def _num(value, field: str, text: str | None = None) -> str:
    data = "" if value is None else f" data-value='{value!r}'"
    return f"<span data-field='{field}'{data}>{esc(pct(value) if text is None else text)}</span>"


def _ci(ci) -> str:
    return "" if not ci else f" <span class=ci>[{pct(ci[0])}, {pct(ci[1])}]</span>"


def _attrs(r: dict) -> str:
    return f"data-group='{esc(r['key'])}' " + " ".join(f"data-{k}='{esc(r[k])}'" for k in KEYS[1:])


def _filters(rows: list[dict]) -> str:
    return "<div class=filters>" + "".join(
        f"<label>{label} <select name='{k}' onchange='kbFilter()'><option value=''>all</option>"
        + "".join(f"<option value='{esc(v)}'>{esc(v)}</option>" for v in sorted({r[k] for r in rows}))
        + "</select></label>" for k, label in (("endpoint", "endpoint"), ("hardware_class", "hardware class"))
    ) + "</div>"


def _who(r: dict) -> str:
    return (f"<td class=l>{esc(r['model'])}</td><td class=l>{esc(r['endpoint'])}</td>"
            f"<td class=l>{esc(r['hardware_class'])}</td>")


def _category_cell(category: str, c: dict, weight: float) -> str:
    n = c["items"]
    return (f"<td data-category='{esc(category)}' data-value='{c['mean']!r}' data-weight='{weight!r}'>"
            f"{pct(c['mean'])}<br><span class=ci>weight {weight:.4f}, {n} item{'' if n == 1 else 's'}</span></td>")


def thinks_page(rows: list[dict]) -> str:
    head = ("<tr><th>rank</th><th class=l>ranked by</th><th class=l>era</th><th>tier</th><th class=l>model</th>"
            "<th class=l>endpoint</th><th class=l>hardware class</th><th>composite (95%, clustered by category)</th>"
            "<th>min detectable gap</th><th class=l>vs next</th><th>usability</th><th>completion</th>"
            "<th>refusals</th><th>timeouts</th><th>normal tier</th><th>hard tier</th><th>items graded</th>"
            "<th>not graded (pending judge)</th><th>judge failed (runs)</th><th>same-family judge</th></tr>")
    body = [_filters(rows), f"<div class=note>{esc(THINKS_NOTE)}</div>", "<table id=thinks>" + head]
    for r in rows:
        missing, tier = r["not_graded"], f"T{r['tier']}"
        body.append(
            f"<tr {_attrs(r)}><td>{_num(r['rank'], 'rank', str(r['rank']))}</td><td class=l>{esc(r['ranked_by'])}</td>"
            f"<td class=l>{esc(r['era'])}</td><td>{_num(r['tier'], 'tier', tier)}</td>{_who(r)}"
            f"<td>{_num(r['composite'], 'composite')}{_ci(r['composite_ci'])}</td>"
            f"<td>{_num(r['min_detectable_gap'], 'mdg')}</td>"
            f"<td class=l>{'<span class=tie>tie with next</span>' if r['tie_next'] else ''}</td>"
            f"<td>{_num(r['usability'], 'usability')}</td><td>{_num(r['completion'], 'completion')}</td>"
            f"<td>{_num(r['refusals'], 'refusals', str(r['refusals']))}</td>"
            f"<td>{_num(r['timeouts'], 'timeouts', str(r['timeouts']))}</td>"
            f"<td>{_num(r['tiers']['normal'], 'normal')}</td><td>{_num(r['tiers']['hard'], 'hard')}</td>"
            f"<td>{_num(r['graded'], 'graded', str(r['graded']))}</td>"
            f"<td title='{esc(', '.join(missing))}'>{_num(len(missing), 'not_graded', str(len(missing)))}</td>"
            f"<td class='{'warn' if r['judge_failed'] else ''}' title='{esc(', '.join(r['judge_failed_items']))}'>"
            f"{_num(r['judge_failed'], 'judge_failed', str(r['judge_failed']))}</td>{_same_family(r)}</tr>")
    body.append("</table>")
    cats = [c for c in CATEGORIES if any(c in r["categories"] for r in rows)]
    body.append("<h2>Category means and the weights of the composite</h2><p>composite = the sum over a row's "
                "categories of weight &times; mean; the weights of a row sum to 1 (shown to 4 places).</p>"
                "<table id=categories><tr><th class=l>model</th><th class=l>endpoint</th><th class=l>hardware class"
                "</th>" + "".join(f"<th>{esc(c)}</th>" for c in cats) + "<th>sum of weights</th></tr>")
    for r in rows:
        cells = "".join(_category_cell(c, r["categories"][c], r["weights"][c]) if c in r["categories"]
                        else "<td>&ndash;</td>" for c in cats)
        body.append(f"<tr {_attrs(r)}>{_who(r)}{cells}<td>{sum(r['weights'].values()):.4f}</td></tr>")
    body.append("</table>")
    if not rows:
        body = ["<p>No capability results under this suite's fingerprint in the store yet.</p>"]
    return page("Thinks: the capability composite", "\n".join(body), script=FILTER_JS)


def _same_family(r: dict) -> str:
    items = r["same_family_items"]
    if not items:
        return "<td data-field='same_family' data-value='0'></td>"
    return (f"<td class=warn data-field='same_family' data-value='{len(items)}' title='{esc(', '.join(items))}'>"
            f"{len(items)} item{'' if len(items) == 1 else 's'} voted on by {esc(', '.join(r['same_family_judges']))}"
            "</td>")


def _rank(r: dict) -> str:
    if r["rank"] is None:
        return ""
    why = (f"the gap to the row above, {100 * r['gap_above']:+.1f} pts, is below what {r['tasks_above']} tasks can "
           f"detect ({100 * r['mde_above']:.1f} pts at power 0.80)" if r["rank_shared"] and r["mde_above"] is not None
           else "no gap to the row above that its tasks can show" if r["rank_shared"] else "")
    return (f"<span data-field='rank' data-value='{r['rank']}' title='{esc(why)}'>"
            f"{'=' if r['rank_shared'] else ''}{r['rank']}</span>")


def _spread(s: dict | None) -> str:
    if s is None:
        return "needs both harnesses"
    lo, hi = s["ci"]
    return (f"<span data-field='spread' data-value='{s['mean']!r}'>{100 * s['mean']:+.1f} pts</span> "
            f"<span class=ci>[{100 * lo:+.1f}, {100 * hi:+.1f}] over {s['tasks']} tasks</span>")


def ships_page(doc: dict) -> str:
    rows, sat, rho = doc["rows"], doc["saturated"], doc["spearman"]
    head = ("<tr><th>rank</th><th class=l>era</th><th class=l>model</th><th class=l>endpoint</th>"
            "<th class=l>hardware class</th><th>Ships</th><th>tasks counted</th><th class=l>status</th>"
            "<th class=l>harnesses</th>"
            "<th>pi &minus; builtin (paired, 95%)</th><th>Thinks composite</th></tr>")
    body = [_filters(rows), f"<div class=note>{esc(SHIPS_NOTE)}</div>", "<table id=ships>" + head]
    for r in rows:
        status = ("no task counts" if r["ships"] is None else "provisional" if r["provisional"] else "")
        body.append(f"<tr {_attrs(r)}><td>{_rank(r)}</td><td class=l>{esc(r['era'])}</td>{_who(r)}"
                    f"<td>{_num(r['ships'], 'ships') if r['ships'] is not None else '&ndash;'}</td>"
                    f"<td>{len(r['counted'])}</td><td class='l warn'>{status}</td>"
                    f"<td class=l>{esc(', '.join(r['harnesses']) or '-')}</td>"
                    f"<td>{_spread(r['spread']) if r['tasks'] else '&ndash;'}</td>"
                    f"<td>{_num(r['composite'], 'composite')}</td></tr>")
    body.append("</table>")
    if rho["rho"] is not None:
        body.append(f"<p id=spearman>Spearman correlation of Ships with the Thinks composite over {rho['models']} "
                    f"models: <b data-value='{rho['rho']!r}'>{rho['rho']:.3f}</b></p>")
    else:
        body.append(f"<p id=spearman>Spearman correlation of Ships with the Thinks composite: {rho['models']} "
                    f"models have both; {MIN_MODELS_RHO} are needed.</p>")
    body.append("<h2>Saturated tasks (left out of Ships)</h2><ul id=saturated>" + "".join(
        f"<li data-task='{esc(t)}'>{esc(t)}: " + ", ".join(f"{esc(' · '.join(k))} {pct(s)}"
                                                             for k, s in sorted(scores.items())) + "</li>"
        for t, scores in sat.items()) + "</ul>" + ("" if sat else "<p>None.</p>"))
    body.append("<h2>Per task</h2><table id=tasks><tr><th class=l>model</th><th class=l>endpoint</th>"
                "<th class=l>hardware class</th><th class=l>task</th>" + "".join(
                    f"<th>{h} (runs)</th>" for h in HARNESSES) + "<th>other harnesses</th><th>task score</th>"
                "<th class=l>counted</th></tr>")
    for r in rows:
        for task, t in sorted(r["tasks"].items()):
            cells = "".join(f"<td>{pct(t['harness'][h]['mean'])} ({t['harness'][h]['runs']})</td>"
                            if h in t["harness"] else "<td>&ndash;</td>" for h in HARNESSES)
            other = ", ".join(f"{h} {pct(v['mean'])} ({v['runs']})" for h, v in sorted(t["harness"].items())
                              if h not in HARNESSES)
            body.append(f"<tr {_attrs(r)} data-task='{esc(task)}'>{_who(r)}<td class=l>{esc(task)}</td>{cells}"
                        f"<td>{esc(other)}</td><td>{_num(t['score'], 'task_score')}</td>"
                        f"<td class=l>{'saturated' if task in sat else 'yes'}</td></tr>")
    body.append("</table>")
    if not rows:
        body = ["<p>No agent task results and no capability results in the store yet.</p>"]
    return page("Ships: agent work that ships", "\n".join(body), script=FILTER_JS)


def capability_pages(store: ResultsStore, out: Path) -> None:
    agent_tasks = agent_categories()
    thinks = thinks_rows(store, agent_tasks)
    (Path(out) / "thinks.html").write_text(thinks_page(thinks))
    (Path(out) / "ships.html").write_text(ships_page(ships_rows(store, agent_tasks, thinks=thinks)))
    (Path(out) / "judge-bias.html").write_text(judge_bias_page(bias_study(store)))
