"""The board's speed page: how fast each endpoint answered, from the requests table (one row per model request,
timed on the wire by sandbox/agents/wire.py), and what that speed bought: pass@1 against generation rate.

Distributions, not just means: a server that is quick for short prompts and slow for long ones shows a wide spread
between its 10th and 90th percentile. The generation rate of an endpoint is pooled over its tokens (tokens after
the first, over the seconds from first to last), so a two-token reply timed over a few milliseconds weighs little.
"""

from __future__ import annotations

from pathlib import Path

from kbench_dagster.reporting.board_html import esc, page
from kbench_dagster.reporting.board_plots import plot_scatter
from kbench_dagster.store import ResultsStore

_TIMED = "gen_s > 0 AND completion_tokens > 1"
SPEED_SQL = f"""
SELECT COALESCE(endpoint, server_url || ' (unnamed)') AS endpoint, model,
       COALESCE(any_value(engine), 'unknown') AS engine,
       COALESCE(any_value(hardware_class), 'unknown') AS hardware_class,
       count(*) AS requests,
       quantile_cont(ttft_s, [0.1, 0.5, 0.9]) AS ttft,
       sum(completion_tokens - 1) FILTER (WHERE {_TIMED}) / sum(gen_s) FILTER (WHERE {_TIMED}) AS gen_rate,
       quantile_cont(gen_tok_s, [0.1, 0.5, 0.9]) AS gen_q,
       median(server_gen_tok_s) AS server_gen, median(server_prompt_tok_s) AS server_prompt,
       sum(completion_tokens) AS tokens
FROM requests GROUP BY ALL ORDER BY hardware_class, endpoint, model
"""
COLUMNS = ("endpoint", "model", "engine", "hardware_class", "requests", "ttft", "gen_rate", "gen_q", "server_gen",
           "server_prompt", "tokens")


def speed_rows(store: ResultsStore) -> list[dict]:
    _, rows = store.query(SPEED_SQL)
    return [dict(zip(COLUMNS, r)) for r in rows]


def _q(values, fmt: str) -> str:
    if not values or values[1] is None:
        return "n/a"
    return " / ".join(format(v, fmt) for v in values)


def _num(v, fmt: str) -> str:
    return "n/a" if v is None else format(v, fmt)


def speed_page(store: ResultsStore, agg: dict, out: Path, link) -> None:
    """speed.html: per endpoint and model, time to first token and generation rate; pass@1 against the rate."""
    rows = speed_rows(store)
    head = ("<tr><th class=l>hardware class</th><th class=l>endpoint</th><th class=l>engine</th>"
            "<th class=l>model</th><th>requests</th><th>tokens out</th><th>first token (s) p10 / p50 / p90</th>"
            "<th>generation tok/s (pooled)</th><th>per request p10 / p50 / p90</th><th>server says gen tok/s</th>"
            "<th>server says prompt tok/s</th></tr>")
    body = [f"<tr><td class=l>{esc(r['hardware_class'])}</td><td class=l>{esc(r['endpoint'])}</td>"
            f"<td class=l>{esc(r['engine'])}</td><td class=l>{esc(r['model'])}</td><td>{r['requests']}</td>"
            f"<td>{r['tokens'] or 0}</td><td>{_q(r['ttft'], '.2f')}</td><td>{_num(r['gen_rate'], '.1f')}</td>"
            f"<td>{_q(r['gen_q'], '.1f')}</td><td>{_num(r['server_gen'], '.1f')}</td>"
            f"<td>{_num(r['server_prompt'], '.1f')}</td></tr>" for r in rows]
    rate = {(r["model"], r["endpoint"]): r["gen_rate"] for r in rows}
    points = [{**g, "mech": {**g["mech"], "gen_rate": rate.get((g["model"], g["server"]))}} for g in agg["groups"]]
    text = ["<p class='ci'>Measured by the harness on the wire, for every model request: time to first token from "
            "sending the request to the first generated piece; generation rate over the tokens after the first. "
            "Figures a server reports itself (llama.cpp's timings) are shown beside, never in place of, the "
            "measured ones.</p>"]
    if rows:
        text.append(f"<table>{head}{''.join(body)}</table><h2>pass@1 against generation rate</h2>"
                    + plot_scatter(points, "gen_rate", "generation tokens per second (pooled)", link))
    else:
        text.append("<p>No timed requests in the store yet.</p>")
    (out / "speed.html").write_text(page("Speed", "\n".join(text)))
