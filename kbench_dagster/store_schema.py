"""The results store's tables: their columns, the tables of kinds registered from elsewhere, and how a writer
tells that a file's schema is this version's (kbench_dagster/store.py opens and writes the file)."""

from __future__ import annotations

import hashlib
import re

from kbench_dagster.views import SCORED_VIEW
from sandbox.engine.agent_rows import ATTEMPT_COLUMNS, GRADING_COLUMNS

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS attempts ({", ".join(f'"{c}" {t}' for c, t in ATTEMPT_COLUMNS.items())});
CREATE TABLE IF NOT EXISTS gradings ({", ".join(f'"{c}" {t}' for c, t in GRADING_COLUMNS.items())});
CREATE TABLE IF NOT EXISTS runs (
    partition_key VARCHAR, run_id VARCHAR, model VARCHAR, agent VARCHAR, condition VARCHAR, seed INTEGER,
    server_url VARCHAR, suite_fingerprint VARCHAR, attempts INTEGER, infra_failures INTEGER,
    started_at TIMESTAMP, finished_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS events_summary (
    partition_key VARCHAR, run_id VARCHAR, condition VARCHAR, task VARCHAR, seed INTEGER,
    events INTEGER, prompts INTEGER, replies INTEGER, tool_calls INTEGER, tool_results INTEGER, errors INTEGER,
    bytes BIGINT);
CREATE TABLE IF NOT EXISTS manifests (
    run_id VARCHAR PRIMARY KEY, model VARCHAR, agent VARCHAR, server_url VARCHAR, suite_fingerprint VARCHAR,
    created VARCHAR, versions JSON, gpus JSON, server JSON, settings JSON);
-- columns added since the first release: files made before gain them on open
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS over_budget BOOLEAN;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS latency_budget_s DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS sampling VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS endpoint VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS engine VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS quant VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS hardware VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS hardware_class VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS requests INTEGER;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS ttft_s DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS gen_tok_s DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS server_gen_tok_s DOUBLE;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS reasoning_effort VARCHAR;
ALTER TABLE attempts ADD COLUMN IF NOT EXISTS reasoned BOOLEAN;
CREATE TABLE IF NOT EXISTS requests (
    partition_key VARCHAR, run_id VARCHAR, model VARCHAR, agent VARCHAR, kind VARCHAR, condition VARCHAR,
    task VARCHAR, seed INTEGER, n INTEGER, stream BOOLEAN, finish VARCHAR, ttft_s DOUBLE, total_s DOUBLE, gen_s DOUBLE,
    prompt_tokens BIGINT, completion_tokens BIGINT, gen_tok_s DOUBLE, server_prompt_tok_s DOUBLE,
    server_gen_tok_s DOUBLE, server_url VARCHAR, endpoint VARCHAR, engine VARCHAR, hardware_class VARCHAR);
CREATE TABLE IF NOT EXISTS endpoints (
    name VARCHAR PRIMARY KEY, url VARCHAR, hardware VARCHAR, hardware_class VARCHAR, site VARCHAR, engine VARCHAR,
    engine_version VARCHAR, build VARCHAR, model_id VARCHAR, model_file VARCHAR, quant VARCHAR, n_ctx VARCHAR,
    slots VARCHAR, sampling_defaults JSON, declared JSON, guessed JSON, described_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS models (
    model_key VARCHAR PRIMARY KEY, model_id VARCHAR, endpoint VARCHAR, first_seen TIMESTAMP);
ALTER TABLE requests ADD COLUMN IF NOT EXISTS queued_s DOUBLE;
CREATE TABLE IF NOT EXISTS judge_bias (
    partition_key VARCHAR, judge VARCHAR, judge_family VARCHAR, judge_fingerprint VARCHAR, model VARCHAR,
    model_family VARCHAR, endpoint VARCHAR, item VARCHAR, category VARCHAR, seed INTEGER, outcome VARCHAR,
    criteria INTEGER, met INTEGER, median JSON, detail VARCHAR, suite_fingerprint VARCHAR, judged_at TIMESTAMP);
"""
# the rows every run has (an agent-task run's attempts and gradings among them); each kind adds its own table
TABLES = ("attempts", "gradings", "runs", "events_summary", "requests")
# the rows of studies made over stored results, outside any run: each judge's verdicts on the same replies
# (`kbench capability judge-bias`), a partition per judge x model x endpoint
STUDIES = ("judge_bias",)
# SCHEMA and SCORED_VIEW take about as long as opening the file and almost always change nothing, so a writer runs
# them only when the file lacks one of their tables or their view, or when other DDL ran there last. Their digest, set
# as the view's comment once both have run, tells: a writer of another version sets its own digest, or (one from
# before the digest) drops it by replacing the view, and the next writer of this version runs them again.
VIEW = re.search(r"CREATE OR REPLACE VIEW (\w+)", SCORED_VIEW).group(1)


def kind_tables() -> dict[str, dict[str, str]]:
    """Each kind's own table with its columns, as its card declares them (sandbox/engine/registry.py): a store gains
    a table, or a column, when it is next opened for writing."""
    from sandbox.engine.registry import all_cards

    return {c.table: c.columns for c in all_cards() if c.columns}


def all_tables() -> tuple[str, ...]:
    """Every table rows go to: the ones every run has, each kind's own, and the studies'."""
    return TABLES + tuple(kind_tables()) + STUDIES


def full_schema() -> str:
    return SCHEMA + "".join(
        f"CREATE TABLE IF NOT EXISTS {table} (partition_key VARCHAR, "
        + ", ".join(f'"{c}" {t}' for c, t in columns.items() if c != "partition_key") + ");\n"
        + "".join(f'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS "{c}" {t};\n' for c, t in columns.items())
        for table, columns in kind_tables().items())


def schema_mark(schema: str) -> str:
    return "kbench schema " + hashlib.sha256((schema + SCORED_VIEW).encode()).hexdigest()[:16]


CATALOG = """
SELECT table_name, NULL FROM duckdb_tables() WHERE NOT temporary AND schema_name = 'main'
UNION ALL
SELECT view_name, comment FROM duckdb_views() WHERE NOT temporary AND schema_name = 'main' AND NOT internal
"""


def schema_current(con, schema: str) -> bool:
    found = dict(con.execute(CATALOG).fetchall())
    return found.get(VIEW) == schema_mark(schema) and all(
        t in found for t in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", schema))
