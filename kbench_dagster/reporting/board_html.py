"""What every board page and plot shares: escaping, slugs, percentages and the page shell."""

from __future__ import annotations

import hashlib
import html
import re

from kbench_dagster.reporting import stats
from kbench_dagster.reporting.board_style import CSS


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
           f'<a href="{up}tasks.html">Tasks</a><a href="{up}speed.html">Speed</a><a href="{up}kernels.html">Kernels</a>'
           f'<a href="{up}textjobs.html">Text jobs</a><a href="{up}breakdown.html">Breakdown</a>'
           f'<a href="{up}trials.html">Trials</a><a href="{up}thinks.html">Thinks</a>'
           f'<a href="{up}ships.html">Ships</a>')
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{CSS}</style>{'<script>' + script + '</script>' if script else ''}</head>"
            f"<body><header><strong>kbench</strong> &nbsp; {nav}</header><main><h1>{esc(title)}</h1>\n{body}\n"
            "</main></body></html>\n")
