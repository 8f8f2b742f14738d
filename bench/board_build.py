"""Board and aggregate build over 1M synthetic result rows in DuckDB (target <= 3 s).

The rows are generated inside DuckDB (not timed): MODELS models x 2 agents x 3 conditions x the 65 tasks x SEEDS
seeds, each with a grading row, and one manifest per run (half on a GPU, half on CPU). Timed: the aggregates
(counting in SQL, then the task-clustered statistics, the seeded bootstraps, tiers and paired comparisons in
Python on the per-task tables) and the board (every page but the trajectories: synthetic rows have no records).

    .venv/bin/python bench/board_build.py [ROWS]      # default 1,000,000
"""

import shutil
import sys
import tempfile
import time
from pathlib import Path

from kbench_dagster.parquet_store import open_store
from kbench_dagster.reporting import board_data
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore
from task_defs import load_suite

MODELS = 24
AGENTS = ("builtin", "pi")
CONDITIONS = ("base", "think", "base8k")


def generate(store: ResultsStore, rows: int) -> int:
    suite = load_suite("kbench")
    tasks = [(t.id, t.category, t.tier) for t in suite.tasks]
    seeds = max(1, round(rows / (MODELS * len(AGENTS) * len(CONDITIONS) * len(tasks))))
    values = ", ".join(f"({i}, '{tid}', '{cat}', '{tier}')" for i, (tid, cat, tier) in enumerate(tasks))
    with store.connect() as con:
        con.execute(f"CREATE TEMP TABLE tk(ti INTEGER, task VARCHAR, category VARCHAR, tier VARCHAR); "
                    f"INSERT INTO tk VALUES {values}")
        agents = ", ".join(f"({i}, '{a}')" for i, a in enumerate(AGENTS))
        conds = ", ".join(f"({i}, '{c}')" for i, c in enumerate(CONDITIONS))
        con.execute(f"CREATE TEMP TABLE ag(ai INTEGER, agent VARCHAR); INSERT INTO ag VALUES {agents}; "
                    f"CREATE TEMP TABLE cd(ci INTEGER, condition VARCHAR); INSERT INTO cd VALUES {conds}")
        # the chance of a pass: a model's skill minus a task's difficulty, plus a little per condition
        con.execute(f"""
            INSERT INTO attempts (partition_key, run_id, model, agent, condition, task, seed, category, tier,
                                  outcome, infra, duration_s, turns, input_tokens, output_tokens, cutoffs, tool_errors,
                                  tool_format_errors, watchdog_kills, outside_writes, false_claim, agent_timeout,
                                  suite_fingerprint, server_url, started_at, finished_at, record_path)
            WITH g AS (
                SELECT m.range AS mi, ag.ai, ag.agent, cd.ci, cd.condition, tk.*, s.range + 1 AS seed,
                       (hash(m.range, ag.ai, cd.ci, tk.ti, s.range) % 100000) / 100000.0 AS u,
                       (hash(tk.ti, 7) % 1000) / 1000.0 AS difficulty
                FROM range({MODELS}) m, ag, cd, tk, range({seeds}) s),
            o AS (
                SELECT *, CASE WHEN u < 0.01 THEN 'infra'
                               WHEN u < 0.01 + greatest(0.02, least(0.97, 0.15 + 0.7 * mi / {MODELS}
                                        - 0.5 * difficulty + 0.04 * ci)) THEN 'pass'
                               ELSE ['wrong', 'wrong', 'crash', 'nofile', 'timeout'][1 + (hash(u) % 5)::INTEGER] END
                          AS outcome
                FROM g)
            SELECT 'synthetic/' || mi || '/' || agent, 'syn-' || mi || '-' || agent,
                   'model-' || lpad(mi::VARCHAR, 2, '0'),
                   agent, condition, task, seed, category, tier, outcome, outcome = 'infra', 5 + 60 * u + 3 * mi,
                   2 + (hash(u, 1) % 20)::INTEGER, 2000 + 500 * mi + (hash(u, 2) % 5000)::INTEGER,
                   100 + (hash(u, 3) % 900)::INTEGER, 0, 0, (u > 0.98)::INTEGER, 0, 0, false, u > 0.995, 'fp',
                   'http://10.0.0.' || (mi % 4) || ':8000/v1', TIMESTAMP '2026-11-01', TIMESTAMP '2026-11-01', NULL
            FROM o""")
        con.execute("""INSERT INTO gradings (partition_key, run_id, model, condition, task, seed, outcome, detail,
                                             test_duration_s, suite_fingerprint, regraded, graded_at)
                       SELECT partition_key, run_id, model, condition, task, seed, outcome, '', 0.1, 'fp', false,
                              TIMESTAMP '2026-11-01' FROM attempts""")
        con.execute("""INSERT INTO manifests SELECT DISTINCT run_id, model, agent, server_url, 'fp', '2026-11-01',
                            '{"kbench": "0.1.0"}',
                            CASE WHEN hash(model) % 2 = 0 THEN '["NVIDIA H200, 143771 MiB, 570.86"]' ELSE '[]' END,
                            '{}', '{}' FROM attempts""")
        return con.execute("SELECT count(*) FROM attempts").fetchone()[0]


def main() -> None:
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    tmp = Path(tempfile.mkdtemp(prefix="kbench-board-bench-"))
    try:
        store = open_store(tmp / "bench.duckdb")
        t = time.perf_counter()
        n = generate(store, target)
        gen = time.perf_counter() - t
        t0 = time.perf_counter()
        agg = board_data.aggregates(store)
        t1 = time.perf_counter()
        index = build_board(store, tmp / "site", agg=agg)
        t2 = time.perf_counter()
        pages = sum(1 for _ in index.parent.rglob("*.html"))
        print(f"rows {n:,} ({len(agg['groups'])} groups, {len(agg['comparisons'])} paired comparisons); "
              f"generated in {gen:.1f}s (not timed)")
        print(f"aggregates {t1 - t0:.2f}s, board pages {t2 - t1:.2f}s ({pages} pages), "
              f"total {t2 - t0:.2f}s (target <= 3 s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
