"""Results out of DuckDB for reports and boards: the current outcome of every attempt, and the aggregates.

Counting happens inside DuckDB (one row per group x task comes back, however many attempts there are); the
statistics on those task tables come from `stats`, the same functions the CLI reports use on result.json rows.
The outcome of an attempt is its latest grading where one exists (a hidden test can be re-graded), else the
outcome the run recorded.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from kbench_dagster import stats
from kbench_dagster.store import ResultsStore

SCORED_SQL = "('pass', 'wrong', 'crash', 'timeout', 'nofile')"
GROUP_KEYS = ("model", "agent", "condition", "server", "hardware")

# One row per attempt with its current outcome, its server and its hardware (from the run's manifest).
ROWS_SQL = """
WITH g AS (
    SELECT run_id, condition, task, seed, outcome, detail, test_duration_s
    FROM gradings
    QUALIFY row_number() OVER (PARTITION BY run_id, condition, task, seed
                               ORDER BY regraded DESC, graded_at DESC NULLS LAST) = 1
)
SELECT a.* EXCLUDE (outcome, detail, test_duration_s, partition_key),
       COALESCE(g.outcome, a.outcome) AS outcome,
       COALESCE(g.detail, a.detail) AS detail,
       COALESCE(g.test_duration_s, a.test_duration_s) AS test_duration_s,
       COALESCE(a.server_url, m.server_url, '?') AS server,
       CASE WHEN m.gpus IS NULL THEN 'unknown'
            WHEN json_array_length(m.gpus) = 0 THEN 'cpu'
            ELSE split_part(json_extract_string(m.gpus, '$[0]'), ',', 1) END AS hardware
FROM attempts a
LEFT JOIN g USING (run_id, condition, task, seed)
LEFT JOIN manifests m USING (run_id)
"""

TASKS_SQL = f"""
SELECT model, agent, condition, server, hardware, task,
       any_value(category) AS category, any_value(tier) AS tier,
       count(*) FILTER (WHERE outcome IN {SCORED_SQL}) AS n,
       count(*) FILTER (WHERE outcome = 'pass') AS c,
       count(*) FILTER (WHERE outcome = 'infra') AS infra,
       count(*) FILTER (WHERE outcome = 'skipped') AS skipped,
       count(*) FILTER (WHERE outcome <> 'skipped') AS attempts,
       count(*) FILTER (WHERE outcome = 'pass' AND NOT COALESCE(agent_timeout, false)) AS usable,
       count(*) FILTER (WHERE outcome IN {SCORED_SQL} AND outcome <> 'timeout'
                        AND NOT COALESCE(agent_timeout, false)) AS completed,
       max(CASE WHEN seed = $seed AND outcome IN {SCORED_SQL} THEN (outcome = 'pass')::INTEGER END) AS first_seed
FROM r GROUP BY ALL
"""

GROUPS_SQL = f"""
SELECT model, agent, condition, server, hardware,
       count(*) AS rows, avg(duration_s) AS mean_time_s, avg(turns) AS mean_turns,
       avg(output_tokens) AS mean_output_tokens, avg(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)) AS mean_tokens,
       sum(COALESCE(cutoffs, 0)) AS cutoffs, sum(COALESCE(tool_errors, 0)) AS tool_errors,
       sum(COALESCE(tool_format_errors, 0)) AS tool_format_errors,
       sum(COALESCE(watchdog_kills, 0)) AS watchdog_kills,
       count(*) FILTER (WHERE COALESCE(outside_writes, 0) > 0) AS outside_write_runs,
       count(*) FILTER (WHERE COALESCE(false_claim, false)) AS false_claims,
       count(DISTINCT suite_fingerprint) AS fingerprints,
       list(DISTINCT run_id ORDER BY run_id) AS run_ids,
       count(DISTINCT seed) AS seeds
FROM r GROUP BY ALL
"""


def _view(con) -> None:
    con.execute(f"CREATE OR REPLACE TEMP VIEW r AS {ROWS_SQL}")


def load_rows(store: ResultsStore, where: str = "", params: list | None = None) -> list[dict]:
    """Every attempt (optionally filtered with a WHERE over the row columns) as a dict, current outcome."""
    with store.connect() as con:
        _view(con)
        cur = con.execute(f"SELECT * FROM r {('WHERE ' + where) if where else ''} "
                          "ORDER BY run_id, condition, task, seed", params or [])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]


def manifests(store: ResultsStore) -> list[dict]:
    with store.connect() as con:
        rows = con.execute("SELECT run_id, model, agent, server_url, suite_fingerprint, created, versions, gpus, "
                           "settings FROM manifests ORDER BY run_id").fetchall()
    out = []
    for run_id, model, agent, url, fp, created, versions, gpus, settings in rows:
        out.append({"run_id": run_id, "model": model, "agent": agent, "server_url": url,
                    "suite": {"fingerprint": fp}, "created": created, "versions": json.loads(versions or "{}"),
                    "gpus": json.loads(gpus or "[]"), "settings": json.loads(settings or "{}")})
    return out


def group_key(g: dict) -> str:
    return " | ".join(str(g[k]) for k in GROUP_KEYS)


def aggregates(store: ResultsStore, seed: int = 0, n_boot: int = stats.DEFAULT_BOOT) -> dict:
    """Every group's task table and statistics, tiers per board (agent x condition), and paired comparisons.

    The result is plain data (JSON-able except tuples), what the `aggregates` asset materializes and the board
    renders."""
    with store.connect() as con:
        _view(con)
        first_seed = con.execute("SELECT min(seed) FROM r").fetchone()[0] or 1
        cur = con.execute(TASKS_SQL, {"seed": first_seed})
        cols = [d[0] for d in cur.description]
        task_rows = [dict(zip(cols, row)) for row in cur.fetchall()]
        cur = con.execute(GROUPS_SQL)
        cols = [d[0] for d in cur.description]
        group_rows = [dict(zip(cols, row)) for row in cur.fetchall()]
    tables: dict[str, dict[str, dict]] = defaultdict(dict)
    for t in task_rows:
        key = group_key(t)
        tables[key][t["task"]] = {
            "task": t["task"], "category": t["category"] or "?", "tier": t["tier"] or "?", "n": t["n"], "c": t["c"],
            "infra": t["infra"], "skipped": t["skipped"], "attempts": t["attempts"], "usable": t["usable"],
            "completed": t["completed"], "seeds": {} if t["first_seed"] is None else {first_seed: t["first_seed"]}}
    groups = []
    for g in sorted(group_rows, key=group_key):
        key = group_key(g)
        summary = stats.summarize_tasks(tables[key], seed=seed, n_boot=n_boot)
        groups.append({**{k: g[k] for k in GROUP_KEYS}, "key": key, "mech": g, "summary": summary,
                       "tasks": tables[key]})
    boards: dict[str, list[dict]] = defaultdict(list)
    for g in groups:
        boards[f"{g['agent']} | {g['condition']}"].append(g)
    tiers, comparisons = {}, []
    for board, members in sorted(boards.items()):
        ranked = stats.statistical_tiers([(g["key"], g["tasks"]) for g in members], seed=seed, n_boot=n_boot)
        tiers.update({e["name"]: {**e, "board": board} for e in ranked})
        by_key = {g["key"]: g for g in members}
        for i in range(1, len(ranked)):  # each model against the one above it and against the leader
            for other in {ranked[i - 1]["name"], ranked[0]["name"]}:
                a, b = by_key[other], by_key[ranked[i]["name"]]
                comparisons.append({"board": board, "a": other, "b": ranked[i]["name"],
                                    **stats.paired(a["tasks"], b["tasks"], seed=seed, n_boot=n_boot)})
    return {"first_seed": first_seed, "groups": groups, "tiers": tiers, "comparisons": comparisons}


def attempts_for_board(store: ResultsStore, per_task: int = 500) -> list[dict]:
    """The attempts the task pages list: at most `per_task` per task (most recent runs first)."""
    with store.connect() as con:
        _view(con)
        cur = con.execute("""
            SELECT run_id, model, agent, condition, server, hardware, task, seed, category, tier, outcome, detail,
                   duration_s, turns, output_tokens, input_tokens, cutoffs, tool_format_errors, agent_timeout,
                   false_claim, record_path
            FROM r
            QUALIFY row_number() OVER (PARTITION BY task ORDER BY run_id DESC, condition, seed) <= ?
            ORDER BY task, model, agent, condition, run_id, seed""", [per_task])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]


def record_dir(row: dict) -> Path | None:
    p = row.get("record_path")
    return Path(p) if p and Path(p).is_dir() else None
