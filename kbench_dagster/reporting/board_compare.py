"""The board's paired comparisons (compare.html): per board, each pair of models' per-task difference with its
intervals, p-values, McNemar on one seed, the minimum detectable gap and a verdict; and TIER_NOTE, which says
what those comparisons make of the leaderboard's tiers."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from kbench_dagster.reporting.board_html import esc, page
from kbench_dagster.reporting.board_models import model_href
from kbench_dagster.reporting.board_plots import plot_deltas

TIER_NOTE = ("Statistical tiers: models on one board (same harness and condition) are compared by paired per-task "
             "differences. When the paired 95% CI (seeded cluster bootstrap over tasks) crosses zero the suite "
             "cannot rank them and they share a tier. Rank order inside a tier is display order only, not a "
             "measured difference.")


def compare_page(agg: dict, out: Path) -> None:
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
            a_href, b_href = model_href(by_key[c["a"]]), model_href(by_key[c["b"]])
            verdict = ("tie: CI crosses zero" if c["crosses_zero"] else
                       ("below the minimum detectable gap" if c.get("below_mdg") else "resolved"))
            rows.append(
                f"<tr><td class=l><a href='{esc(a_href)}'>{esc(name(c['a']))}</a></td>"
                f"<td class=l><a href='{esc(b_href)}'>{esc(name(c['b']))}</a></td><td>{c['tasks']}</td>"
                f"<td><a class='num' href='{esc(b_href)}'>{_signed(c['mean_diff'])}</a></td>"
                f"<td class='ci'>{_signed_ci(c['ci_t'])}</td><td class='ci'>{_signed_ci(c['ci_boot'])}</td>"
                f"<td>{_p(c['p_t'])}</td><td>{mc.get('b', '-')}/{mc.get('c', '-')}{seed_note}</td>"
                f"<td>{_p(mc.get('p_exact'))}</td>"
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
