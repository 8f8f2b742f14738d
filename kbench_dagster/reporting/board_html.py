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


CORE_MENU = (("Leaderboard", "index.html"), ("Compare", "compare.html"), ("Tasks", "tasks.html"),
             ("Speed", "speed.html"))


def menu() -> tuple[tuple[str, str], ...]:
    """The board's menu: its own pages, then each registered kind's (sandbox/engine/registry.py)."""
    from sandbox.engine.registry import all_cards

    return CORE_MENU + tuple(link for card in all_cards() for link in card.board_menu)


def page(title: str, body: str, depth: int = 0, script: str = "") -> str:
    up = "../" * depth
    nav = "".join(f'<a href="{up}{file}">{esc(title)}</a>' for title, file in menu())
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{CSS}</style>{'<script>' + script + '</script>' if script else ''}</head>"
            f"<body><header><strong>kbench</strong> &nbsp; {nav}</header><main><h1>{esc(title)}</h1>\n{body}\n"
            "</main></body></html>\n")
