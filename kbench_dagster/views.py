"""Views over the results store that readers (SQL users, reports, boards) share."""

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

PASS_AT_1 = """
SELECT model, agent, condition,
       count(*) FILTER (WHERE outcome NOT IN ('skipped', 'infra')) AS runs,
       round(avg(CASE WHEN outcome = 'pass' THEN 1.0 ELSE 0.0 END)
             FILTER (WHERE outcome NOT IN ('skipped', 'infra')), 4) AS pass_at_1,
       count(*) FILTER (WHERE outcome = 'infra') AS infra_failures
FROM scored GROUP BY ALL ORDER BY model, agent, condition
"""
