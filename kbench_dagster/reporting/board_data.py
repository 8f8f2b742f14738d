"""Results out of DuckDB for reports and boards: the current outcome of every attempt, and the aggregates.

Counting happens inside DuckDB (one row per group x task comes back, however many attempts there are); the
statistics on those task tables come from `stats`, the same functions the CLI reports use on result.json rows.
The outcome of an attempt is its latest grading where one exists (a hidden test can be re-graded), else the
outcome the run recorded.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import PurePosixPath

from kbench_dagster.reporting import difficulty, pairwise, stats
from kbench_dagster.store import ResultsStore
from sandbox.servers.hardware import headline_of
from task_defs.vocabulary import SCORED_SQL

# A row of a board: a model under one harness, condition and sampling, on one endpoint and its hardware. Rows made
# with other sampling never merge (it is part of the row); boards rank within a hardware class.
GROUP_KEYS = ("model", "agent", "condition", "sampling", "server", "engine", "quant", "hardware_class", "hardware")
_ORDER = "(COALESCE(regraded, false), COALESCE(graded_at, TIMESTAMP '1970-01-01'))"
# The endpoint by its name (kbench endpoints add); a run against a server nobody named says its URL.
SERVER_SQL = "COALESCE(a.endpoint, COALESCE(a.server_url, '?') || ' (unnamed)')"
ENDPOINT_COLUMNS = (f"{SERVER_SQL} AS server, COALESCE(a.sampling, 'server default') AS sampling, "
                    "COALESCE(a.engine, 'unknown') AS engine, COALESCE(a.quant, 'unknown') AS quant, "
                    "COALESCE(a.hardware_class, 'unknown') AS hardware_class, "
                    "COALESCE(a.hardware, 'unknown') AS hardware")
GROUP_SQL = ", ".join(GROUP_KEYS)

# The latest grading of each attempt (a re-grade wins over the first grading, then the latest).
GRADINGS_SQL = f"""
SELECT run_id, condition, task, seed, arg_max(outcome, {_ORDER}) AS outcome, arg_max(detail, {_ORDER}) AS detail,
       arg_max(test_duration_s, {_ORDER}) AS test_duration_s
FROM gradings GROUP BY ALL
"""

# One row per attempt with its current outcome, its endpoint and the endpoint's hardware.
ROWS_SQL = f"""
WITH g AS ({GRADINGS_SQL})
SELECT a.* EXCLUDE (outcome, detail, test_duration_s, partition_key, sampling, engine, quant, hardware,
                   hardware_class),
       COALESCE(g.outcome, a.outcome) AS outcome,
       COALESCE(g.detail, a.detail) AS detail,
       COALESCE(g.test_duration_s, a.test_duration_s) AS test_duration_s,
       {ENDPOINT_COLUMNS}
FROM attempts a
LEFT JOIN g USING (run_id, condition, task, seed)
"""

# The counting, in one scan: one row per board row (GROUP_KEYS), run and task.
COUNTS_SQL = f"""
WITH g AS ({GRADINGS_SQL}),
r AS (
    SELECT a.model, a.agent, a.condition, {ENDPOINT_COLUMNS}, a.run_id, a.task, a.category,
           a.tier, a.seed, a.agent_timeout, a.over_budget,
           -- a time out of every attempt's range (an import made before the bounds, say) counts as none: summed
           -- as a DECIMAL it would stop every build
           CASE WHEN a.duration_s BETWEEN 0 AND 1e6 THEN a.duration_s END AS duration_s,
           a.turns, a.input_tokens, a.output_tokens, a.cutoffs,
           a.tool_errors, a.tool_format_errors, a.watchdog_kills, a.outside_writes, a.false_claim,
           a.suite_fingerprint, COALESCE(g.outcome, a.outcome) AS outcome
    FROM attempts a LEFT JOIN g USING (run_id, condition, task, seed))
SELECT {GROUP_SQL}, run_id, task,
       any_value(category) AS category, any_value(tier) AS tier,
       count(*) FILTER (WHERE outcome IN {SCORED_SQL}) AS n,
       count(*) FILTER (WHERE outcome = 'pass') AS c,
       count(*) FILTER (WHERE outcome = 'infra') AS infra,
       count(*) FILTER (WHERE outcome = 'skipped') AS skipped,
       count(*) FILTER (WHERE outcome <> 'skipped') AS attempts,
       count(*) FILTER (WHERE outcome = 'pass' AND NOT COALESCE(agent_timeout, false)
                        AND NOT COALESCE(over_budget, false)) AS usable,
       count(*) FILTER (WHERE outcome IN {SCORED_SQL} AND outcome <> 'timeout'
                        AND NOT COALESCE(agent_timeout, false) AND NOT COALESCE(over_budget, false)) AS completed,
       -- per seed, as bits (seeds 0..62; a list per row costs the board its time budget): scored, and passed
       bit_or(CASE WHEN seed BETWEEN 0 AND 62 THEN 1::BIGINT << seed END) FILTER (WHERE outcome IN {SCORED_SQL})
           AS seeds_scored,
       bit_or(CASE WHEN seed BETWEEN 0 AND 62 THEN 1::BIGINT << seed END) FILTER (WHERE outcome = 'pass')
           AS seeds_passed,
       -- the means are per attempt that ran, as the report's: a skipped one ran nothing and holds zeros
       count(*) AS rows, sum(duration_s::DECIMAL(18, 3)) FILTER (WHERE outcome <> 'skipped') AS time_s,  -- exact
       count(duration_s) FILTER (WHERE outcome <> 'skipped') AS time_n, sum(turns) AS turns,
       count(turns) FILTER (WHERE outcome <> 'skipped') AS turns_n, sum(output_tokens) AS out_tok,
       count(output_tokens) AS out_n,
       sum(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)) AS tokens,
       sum(COALESCE(cutoffs, 0)) AS cutoffs, sum(COALESCE(tool_errors, 0)) AS tool_errors,
       sum(COALESCE(tool_format_errors, 0)) AS tool_format_errors, sum(COALESCE(watchdog_kills, 0)) AS watchdog_kills,
       count(*) FILTER (WHERE COALESCE(outside_writes, 0) > 0) AS outside_write_runs,
       count(*) FILTER (WHERE COALESCE(false_claim, false)) AS false_claims,
       list(DISTINCT suite_fingerprint) AS fingerprints, max(seed) AS max_seed
FROM r GROUP BY ALL
ORDER BY {GROUP_SQL}, run_id, task  -- a fixed order: sums come out the same every time
"""
TASK_COUNTS = ("n", "c", "infra", "skipped", "attempts", "usable", "completed")
GROUP_SUMS = ("rows", "time_s", "time_n", "turns", "turns_n", "out_tok", "out_n", "tokens", "cutoffs", "tool_errors",
              "tool_format_errors", "watchdog_kills", "outside_write_runs", "false_claims")


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


def _fetch(con, sql: str, params=None) -> list[dict]:
    cur = con.execute(sql, params or {})
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur.fetchall()]


def aggregates(store: ResultsStore, seed: int = 0, n_boot: int = stats.DEFAULT_BOOT) -> dict:
    """Every group's task table and statistics, tiers per board (agent x condition), and paired comparisons.

    A group is a model under one harness (agent), condition, server and hardware. The result is plain data, what
    the `aggregates` asset materializes and the board renders."""
    with store.connect() as con:
        counts = _fetch(con, COUNTS_SQL)
        pass_rates = con.execute(difficulty.PASS_RATES_SQL).fetchall()  # what `kbench audit --results` reads
    tables: dict[str, dict[str, dict]] = defaultdict(dict)
    mech: dict[str, dict] = {}
    for row in counts:
        key = group_key(row)
        t = tables[key].get(row["task"])
        if t is None:
            t = tables[key][row["task"]] = {"task": row["task"], "category": row["category"] or "?",
                                            "tier": row["tier"] or "?", "seeds": {},
                                            **{k: 0 for k in TASK_COUNTS}}
        for k in TASK_COUNTS:
            t[k] += row[k]
        scored, passed = row["seeds_scored"] or 0, row["seeds_passed"] or 0
        while scored:  # per seed, for McNemar on the seed a pair of models shares most
            bit = scored & -scored
            seed_no = bit.bit_length() - 1
            t["seeds"][seed_no] = max(t["seeds"].get(seed_no, 0), int(bool(passed & bit)))
            scored ^= bit
        m = mech.get(key)
        if m is None:
            m = mech[key] = {**{k: row[k] for k in GROUP_KEYS}, **{k: 0 for k in GROUP_SUMS},
                             "run_ids": set(), "fingerprint_set": set(), "seeds": 0}
        for k in GROUP_SUMS:
            m[k] += float(row[k] or 0) if k == "time_s" else (row[k] or 0)
        m["run_ids"].add(row["run_id"])
        m["fingerprint_set"].update(f for f in row["fingerprints"] if f)
        m["seeds"] = max(m["seeds"], row["max_seed"] or 0)
    groups = []
    for key in sorted(tables):
        m = mech[key]
        m.update(run_ids=sorted(m["run_ids"]), fingerprints=len(m.pop("fingerprint_set")),
                 mean_time_s=m["time_s"] / m["time_n"] if m["time_n"] else None,
                 mean_turns=m["turns"] / m["turns_n"] if m["turns_n"] else None,
                 mean_output_tokens=m["out_tok"] / m["out_n"] if m["out_n"] else None,
                 mean_tokens=m["tokens"] / m["rows"] if m["rows"] else None)
        summary = stats.summarize_tasks(tables[key], seed=seed, n_boot=n_boot)
        groups.append({**{k: m[k] for k in GROUP_KEYS}, "key": key, "mech": m, "summary": summary,
                       "tasks": tables[key]})
    boards: dict[str, list[dict]] = defaultdict(list)
    for g in groups:
        boards[board_of(g)].append(g)
    tiers, comparisons = {}, []
    for board, members in sorted(boards.items()):
        headline = headline_of(members[0]["hardware_class"])
        tables_of = {g["key"]: headline_tables(g["tasks"], headline) for g in members}
        ranked = pairwise.statistical_tiers(list(tables_of.items()), seed=seed, n_boot=n_boot)
        tiers.update({e["name"]: {**e, "board": board, "headline": headline} for e in ranked})
        by_key = tables_of
        ranked = [e for e in ranked if e["tier"] is not None]  # the unranked share nothing to compare on
        for i in range(1, len(ranked)):  # each model against the one above it and against the leader
            for other in sorted({ranked[i - 1]["name"], ranked[0]["name"]}):
                a, b = by_key[other], by_key[ranked[i]["name"]]
                comparisons.append({"board": board, "a": other, "b": ranked[i]["name"], "headline": headline,
                                    **pairwise.paired(a, b, seed=seed, n_boot=n_boot)})
    tasks = difficulty.by_task(pass_rates)
    return {"groups": groups, "tiers": tiers, "comparisons": comparisons,
            "difficulty": {"contestants": difficulty.contestants(tasks),
                           "tasks": {t.task: {"rates": t.rates, "mean": t.mean, "flag": t.flag,
                                              "discriminating": t.discriminating, "in_band": t.in_band}
                                     for t in tasks}}}


def board_of(g: dict) -> str:
    """The board a row ranks on: its hardware class, harness and condition (a CPU never ranks against a GPU)."""
    return f"{g['hardware_class']} | {g['agent']} | {g['condition']}"


def headline_tables(tasks: dict[str, dict], headline: str) -> dict[str, dict]:
    """The task tables a board's tiers compare: passes, or for a usability board the passes inside the latency
    budget out of every attempt (a timeout or an infra failure is not usable). McNemar's per-seed table is for
    passes only, so a usability board compares without it."""
    if headline == "pass@1":
        return tasks
    return {k: {**t, "c": t["usable"], "n": t["attempts"], "seeds": {}} for k, t in tasks.items()}


def attempts_for_board(store: ResultsStore, per_task: int = 500) -> list[dict]:
    """The attempts the task pages list, those with a record on disk (their evidence): at most `per_task` per
    task, most recent runs first. Rows without a record are counted on the pages, not listed."""
    with store.connect() as con:
        _view(con)
        cur = con.execute(f"""
            SELECT run_id, {GROUP_SQL}, task, seed, category, tier, outcome, detail,
                   duration_s, turns, output_tokens, input_tokens, cutoffs, tool_format_errors, agent_timeout,
                   false_claim, record_path
            FROM r WHERE record_path IS NOT NULL
            QUALIFY row_number() OVER (PARTITION BY task ORDER BY run_id DESC, condition, seed) <= ?
            ORDER BY task, model, agent, condition, run_id, seed""", [per_task])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]


def record_rel(row: dict) -> PurePosixPath | None:
    """Where a row's record folder would lie below the runs root the board reads: RUNID/COND/TASK/sSEED, made
    from the row's own names and never from its record_path (a store's path may have come from anywhere: an
    import, an older version); None when a name could step out of its folder or the row has no record."""
    if not row.get("record_path"):
        return None
    names = [str(row["run_id"]), str(row["condition"]), str(row["task"]), f"s{row['seed']}"]
    if any(n in ("", ".", "..") or "/" in n or "\0" in n for n in names):
        return None
    return PurePosixPath(*names)
