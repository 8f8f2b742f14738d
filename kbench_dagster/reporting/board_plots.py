"""The board's inline SVG plots: pass rates with intervals, pass rate against time and tokens, paired differences."""

from __future__ import annotations

from kbench_dagster.reporting.board_html import esc, pct


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
        parts.append(f'<a href="{esc(link(g))}"><text x="{left - 8}" y="{y + 4}" text-anchor="end">'
                     f'{esc(label[:52])}</text></a>')
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
