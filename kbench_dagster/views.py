"""Views over the results store that readers (SQL users, reports, boards) share."""

from task_defs.vocabulary import SCORED_SQL

SCORED_VIEW = """
CREATE OR REPLACE VIEW scored AS
SELECT a.* EXCLUDE (outcome, detail, test_duration_s, suite_fingerprint),
       COALESCE(g.outcome, a.outcome) AS outcome,
       COALESCE(g.detail, a.detail) AS detail,
       COALESCE(g.test_duration_s, a.test_duration_s) AS test_duration_s,
       COALESCE(g.suite_fingerprint, a.suite_fingerprint) AS suite_fingerprint,
       a.suite_fingerprint AS run_suite_fingerprint,
       COALESCE(g.regraded, FALSE) AS regraded
FROM attempts a
LEFT JOIN gradings g USING (run_id, condition, task, seed)
"""

# Task-balanced, like every pass@1 we publish: each task's pass share over its scored runs, averaged over tasks, so
# a task with more seeds does not weigh more. Infra and skipped runs are not scored.
PASS_AT_1 = f"""
WITH per_task AS (
    SELECT model, agent, condition, task,
           count(*) FILTER (WHERE outcome IN {SCORED_SQL}) AS runs,
           avg(CASE WHEN outcome = 'pass' THEN 1.0 ELSE 0.0 END)
               FILTER (WHERE outcome IN {SCORED_SQL}) AS pass_share,
           count(*) FILTER (WHERE outcome = 'infra') AS infra
    FROM scored GROUP BY ALL
)
SELECT model, agent, condition, CAST(sum(runs) AS BIGINT) AS runs, round(avg(pass_share), 4) AS pass_at_1,
       CAST(sum(infra) AS BIGINT) AS infra_failures
FROM per_task GROUP BY ALL ORDER BY model, agent, condition
"""
