"""The board's leaderboard (index.html), its task pages (tasks.html, task/<task>.html) and build_board, which
writes the whole site; the model pages are in board_models.py, the paired comparisons in board_compare.py."""

from __future__ import annotations

import importlib
import json
import math
import shutil
from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting import board_data, pairwise, stats
from kbench_dagster.reporting.board_attempt import run_href, run_page
from kbench_dagster.reporting.board_compare import TIER_NOTE, compare_page
from kbench_dagster.reporting.board_html import esc, page, pct, slug
from kbench_dagster.reporting.board_models import model_href, model_pages, tier_cell
from kbench_dagster.reporting.board_plots import plot_intervals, plot_scatter
from kbench_dagster.reporting.board_speed import speed_page
from kbench_dagster.reporting.board_style import FILTER_JS
from kbench_dagster.reporting.thinking import NO_THINK_NOTE, no_think_chip, no_think_models
from kbench_dagster.store import ResultsStore
from sandbox.engine.registry import all_cards


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


FILTERS = (("hardware_class", "hardware class"), ("agent", "harness"), ("condition", "condition"),
           ("sampling", "sampling"), ("server", "endpoint"), ("engine", "engine"), ("quant", "quantisation"))
BOARD_NOTE = ("Boards rank within a hardware class: a CPU server never ranks against a GPU one. cpu and entry-gpu "
              "boards rank by usability (passes inside the latency budget, as a user of a small machine needs them), "
              "the others by pass@1; each board's headline is marked. Sampling (temperature, top_p, seed) and the "
              "reasoning effort asked are part of a row: results made with other sampling or effort are other rows, "
              "never merged.")


def headline_value(g: dict, t: dict) -> float | None:
    return g["summary"]["usability" if t.get("headline") == "usability" else "pass@1"]


def _leaderboard(agg: dict, warns: dict[str, list[str]], no_think: set[str]) -> str:
    groups = agg["groups"]
    tiers = agg["tiers"]
    order = sorted(groups, key=lambda g: (tiers[g["key"]]["board"], *pairwise.tier_order(tiers[g["key"]]),
                                          -(headline_value(g, tiers[g["key"]]) or 0), g["key"]))
    opts = {}
    for field, _ in FILTERS:
        values = sorted({str(g[field]) for g in groups})
        opts[field] = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    filters = ('<div class="filters">' + "".join(
        f'<label>{label} <select name="{f}" onchange="kbFilter()"><option value="">all</option>'
        f'{opts[f]}</select></label>' for f, label in FILTERS) + "</div>")
    head = ("<tr><th class=l>board</th><th class=l>ranked by</th><th>tier</th><th class=l>model</th>"
            "<th class=l>harness</th><th class=l>condition</th><th class=l>sampling</th><th class=l>endpoint</th>"
            "<th class=l>engine</th><th class=l>quant</th><th class=l>hardware</th><th>pass@1</th>"
            "<th class=l>95% CI</th><th></th>"
            "<th>pass-any</th><th>pass@k</th><th>pass^k</th><th>usability</th><th>completion</th><th>attrition</th>"
            "<th>runs</th><th>seeds</th><th class=l>warnings</th></tr>")
    rows = []
    for g in order:
        s, t = g["summary"], tiers[g["key"]]
        href = model_href(g)
        attrs = " ".join(f'data-{f}="{esc(g[f])}"' for f, _ in FILTERS)
        w = warns[g["key"]]
        lead = "usability" if t.get("headline") == "usability" else "pass1"
        cell = {f: f'<td class=l>{esc(g[f])}</td>' for f in ("agent", "condition", "sampling", "server", "engine",
                                                              "quant", "hardware")}
        rows.append(
            f'<tr data-group="{esc(g["key"])}" {attrs}><td class=l>{esc(t["board"])}</td>'
            f'<td class=l>{esc(t.get("headline", "pass@1"))}</td>'
            f'<td class="tier">{tier_cell(t)}</td><td class=l><a href="{esc(href)}">{esc(g["model"])}</a>'
            f'{no_think_chip(g["model"], no_think)}</td>'
            + "".join(cell.values())
            + f'<td{" class=lead" if lead == "pass1" else ""}>{_num(s["pass@1"], href, "pass1")}</td>'
            f'<td class="l ci">{stats.fmt_ci(s["pass@1_ci"])}</td><td>{ci_bar(s["pass@1_ci"], s["pass@1"])}</td>'
            f'<td>{_num(s["pass_any"], href, "pass_any")}</td>'
            f'<td>{_num(s["pass@k"], href, "pass_k", pct(s["pass@k"]) + " (k=" + str(s["k"]) + ")")}</td>'
            f'<td>{_num(s["pass^k"], href, "pass_hat_k")}</td>'
            f'<td{" class=lead" if lead == "usability" else ""}>{_num(s["usability"], href, "usability")}</td>'
            f'<td>{_num(s["completion"], href, "completion")}</td><td>{_num(s["attrition"], href, "attrition")}</td>'
            f'<td>{_num(s["runs"], href, "runs", str(s["runs"]))}</td><td>{s["seeds_min"]}'
            f'{"" if s["seeds_min"] == s["seeds_max"] else "-" + str(s["seeds_max"])}</td>'
            f'<td class="l warn">{esc("; ".join(w))}</td></tr>')
    legend = f'<div class="note">{esc(NO_THINK_NOTE)}</div>' if no_think else ""
    return (filters + f'<div class="note">{esc(BOARD_NOTE)}</div><div class="note">{esc(TIER_NOTE)}</div>{legend}'
            f'<table id="leaderboard">{head}{"".join(rows)}</table>'
            '<p class="ci">pass@1: the task-balanced mean of each task\'s pass share (infra failures excluded, shown '
            'as attrition). Usability: per-task share that passed inside the time budget, timeouts and infra '
            'failures as 0. Completion: share of attempts that finished inside the budget.</p>')


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
            body.append(f'<h2 id="{slug(g["key"])}"><a href="{esc(model_href(g, 1))}">{esc(g["model"])}</a> · '
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
                link = (f"<a href='{esc(run_href(a, 1))}'>trajectory</a>" if key in run_pages else "no record")
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
                per_task: int = 500, agg: dict | None = None, runs_root: Path | None = None) -> Path:
    """Write the whole site into out_dir (replacing an earlier board there) and return the path of index.html.
    Trajectory pages come only from records under `runs_root` (found by a row's names, never a stored path; read
    through no link); without it the board's numbers come from the store alone.

    Pages: index.html (the leaderboard with CI bars, statistical tiers, usability, completion and filters for
    harness, condition, server and hardware, plus the plots), model/<model>.html (one section per agent x condition
    x server x hardware), compare.html (paired deltas with CIs), tasks.html and task/<task>.html (every attempt),
    run/<run>/<cond>/<task>/s<seed>.html (one attempt's conversation, hidden test output and final files), and
    kernels.html with kernels/<model>.html (the kernel grader's statuses, gate and speed per task and device),
    textjobs.html and breakdown.html with their model pages (board_language.py), trials.html with its
    strike and evidence pages (board_trials.py), thinks.html (the capability composite) and ships.html
    (agent work that ships) (board_capability.py). CSS
    and JS are inline and plots are inline SVG, so the site needs no external network. Every number links to the
    page that lists the runs behind it.
    """
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
        rel = board_data.record_rel(a)
        if runs_root is not None and rel is not None and run_page(a, Path(runs_root), rel, out):
            run_pages.add((a["run_id"], a["condition"], a["task"], a["seed"]))
    link = lambda g: model_href(g)  # noqa: E731
    ordered = sorted(agg["groups"], key=lambda g: (agg["tiers"][g["key"]]["board"],
                                                   *pairwise.tier_order(agg["tiers"][g["key"]]),
                                                   -(headline_value(g, agg["tiers"][g["key"]]) or 0), g["key"]))
    no_think = no_think_models(store)
    body = [_leaderboard(agg, warns, no_think), "<h2>Pass rate with intervals</h2>", plot_intervals(ordered, link),
            "<h2>Pass rate against time and tokens</h2><div style='display:flex;gap:2em;flex-wrap:wrap'>",
            plot_scatter(ordered, "mean_time_s", "mean agent time per attempt (s)", link),
            plot_scatter(ordered, "mean_tokens", "mean tokens per attempt (in + out)", link), "</div>"]
    if not agg["groups"]:
        body = ["<p>No results in the store yet.</p>"]
    (out / "index.html").write_text(page("Leaderboard", "\n".join(body), script=FILTER_JS))
    model_pages(agg, out, warns, no_think)
    compare_page(agg, out)
    speed_page(store, agg, out, link)
    _task_pages(agg, attempts, out, run_pages, per_task)
    for card in all_cards():  # each kind's own pages (sandbox/engine/registry.py)
        if card.board:
            module, function = card.board.split(":")
            getattr(importlib.import_module(module), function)(store, out)
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
