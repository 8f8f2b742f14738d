"""The board's model pages (model/<model>.html: one section per agent x condition x server x hardware, with its
numbers, intervals, slices and tasks) and the two pieces other pages share with them: the link to a group's
section and its tier cell."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting import stats
from kbench_dagster.reporting.board_html import esc, page, pct, slug
from kbench_dagster.reporting.thinking import NO_THINK_NOTE, no_think_chip


def model_href(g: dict, depth: int = 0) -> str:
    return f"{'../' * depth}model/{slug(g['model'])}.html#{slug(g['key'])}"


def tier_cell(t: dict) -> str:
    """T1, T2, ...; an unranked model shows a dash with the reason on hover."""
    if t["tier"] is None:
        return f'<span title="not ranked: {esc(t.get("unranked") or "")}">&ndash;</span>'
    return f"T{t['tier']}"


def model_pages(agg: dict, out: Path, warns: dict[str, list[str]], no_think: set[str]) -> None:
    """A page per model; `no_think`: the models marked as thinking only when asked (reporting/thinking.py)."""
    by_model: dict[str, list[dict]] = defaultdict(list)
    for g in agg["groups"]:
        by_model[g["model"]].append(g)
    (out / "model").mkdir(exist_ok=True)
    for model, groups in by_model.items():
        ran_on = sorted({(g["server"], g["engine"], g["quant"], g["hardware_class"], g["hardware"]) for g in groups})
        # the legend of the mark, on the pages of the models that carry it
        legend = [f'<p class="note">{no_think_chip(model, no_think)} {esc(NO_THINK_NOTE)}</p>'] if model in no_think \
            else []
        body = legend + ["<p>Endpoints this model ran on: " + "; ".join(
            f"<b>{esc(name)}</b> ({esc(engine)}, {esc(quant)}, {esc(cls)}: {esc(hw)})"
            for name, engine, quant, cls, hw in ran_on) + " &middot; <a href='../speed.html'>speed</a></p>"]
        for g in groups:
            s, m, t = g["summary"], g["mech"], agg["tiers"][g["key"]]
            gs = slug(g["key"])
            body.append(f'<h2 id="{gs}">{esc(g["agent"])} · {esc(g["condition"])} · {esc(g["server"])} · '
                        f'{esc(g["hardware"])} &nbsp; <span class="tier">{tier_cell(t)}</span> '
                        f'on {esc(t["board"])}</h2>')
            if warns[g["key"]]:
                body.append(f'<p class="warn">not ready to publish: {esc("; ".join(warns[g["key"]]))}</p>')
            def line(label, value, ci=None, fmt=pct):  # noqa: E306
                return (f"<tr><td class=l>{esc(label)}</td><td>{esc(fmt(value))}</td>"
                        f"<td class='l ci'>{stats.fmt_ci(ci, 1) if ci else ''}</td></tr>")
            se = lambda v: "n/a" if v is None else f"{100 * v:.2f} pts"  # noqa: E731
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
                            f"<tr><td class=l>{esc(kind)} {esc(k)}</td><td>{v['tasks']}</td>"
                            f"<td>{v['passes']}/{v['runs']}</td><td>{pct(v['pass@1'])}</td>"
                            f"<td class='l ci'>{stats.fmt_ci(v['pass@1_ci'])}</td></tr>"
                            for kind, part in (("tier", s["tiers"]), ("category", s["categories"]))
                            for k, v in part.items())
                        + "</table>")
            body.append(f"<p>mean time {m['mean_time_s'] or 0:.1f}s, mean turns {m['mean_turns'] or 0:.1f}, "
                        f"mean output tokens {m['mean_output_tokens'] or 0:.0f}, cut-off replies {m['cutoffs']}, "
                        f"tool errors {m['tool_errors']}, tool-format errors {m['tool_format_errors']}, false claims "
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
                        "<th class=l>category</th><th class=l>tier</th><th>passes</th><th>infra</th></tr>"
                        f"{cells}</table>")
        (out / "model" / f"{slug(model)}.html").write_text(page(f"model {model}", "\n".join(body), depth=1))
