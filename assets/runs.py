"""Agent runs and their gradings, one partition per model@endpoint x cell (condition and seed): thin calls of the
service that `kbench run` and `kbench regrade` use."""

from pathlib import Path

import dagster as dg

from kbench_dagster import service
from kbench_dagster.cells import cell_settings, registered_model
from kbench_dagster.keys import parse_cell
from kbench_dagster.partitions import keys_of, run_partitions
from kbench_dagster.pools import MODEL_SERVER_POOL
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings, SuiteSource
from kbench_dagster.store import ResultsStore
from sandbox.engine.kinds import AgentTasks


def _preview(rows: list[tuple]) -> str:
    lines = ["| task | outcome | turns | tool-format errors |", "|---|---|---|---|"]
    lines += [f"| {t} | {o} | {'' if n is None else n} | {'' if e is None else e} |" for t, o, n, e in rows[:70]]
    return "\n".join(lines)


def _outcomes(store: ResultsStore, key: str, table: str) -> list[tuple]:
    if table == "attempts":
        return store.partition_rows("attempts", key, ("task", "outcome", "turns", "tool_format_errors"))
    return [(t, o, None, None) for t, o in store.partition_rows("gradings", key, ("task", "outcome"))]


@dg.asset(partitions_def=run_partitions, pool=MODEL_SERVER_POOL, deps=["task_suites"], group_name="runs")
def agent_runs(context: dg.AssetExecutionContext, suite_source: SuiteSource, endpoints: ModelEndpoints,
               agent: AgentSettings, sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """Every task of the suite done by the agent for one model@endpoint and cell, recorded and stored."""
    model_key, cell = keys_of(context)
    store = results_db.store()
    model_id, endpoint_name = registered_model(store, model_key)
    endpoint = endpoints.get(endpoint_name)
    suite = suite_source.primary()
    settings = cell_settings(model_key, cell, suite, model_id, endpoint, agent, sandbox, agent.tasks)
    run = service.plan_run(settings, suite, api_key=endpoint.api_key)
    key = service.partition_store_key(agent.agent, model_key, cell)
    done = service.run_and_store(run, store, store_as=lambda s, st: service.store_run_cell(s, st, key),
                                 say=context.log.warning)
    rows = _outcomes(store, key, "attempts")
    return dg.MaterializeResult(metadata={
        "model": model_id, "endpoint": endpoint_name, "run_id": run.spec.run_id, "rows": len(rows),
        "server_slots": done.spec.server_slots,
        "ran_now": done.summary["ran"], "already_recorded": done.summary["already_done"],
        "passed": sum(r[1] == "pass" for r in rows),
        "suite_fingerprint": suite.fingerprint,
        "preview": dg.MetadataValue.md(_preview(rows)),
    })


@dg.asset(partitions_def=run_partitions, deps=[agent_runs, "task_suites"], group_name="runs")
def gradings(context: dg.AssetExecutionContext, suite_source: SuiteSource, agent: AgentSettings,
             sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """The current outcome of every attempt: regraded from its stored final files when the hidden tests changed."""
    model_key, cell = keys_of(context)
    suite = suite_source.primary()
    store = results_db.store()
    key = service.partition_store_key(agent.agent, model_key, cell)
    run_id = store.run_of(key)
    if run_id is None:
        raise dg.Failure(f"partition {model_key} {cell} has no agent runs yet: materialize agent_runs first")
    out = service.regrade_and_store(Path(agent.runs_root), run_id, AgentTasks(suite), store,
                                    sandbox.isolation_config(), sandbox.work_path(), key_of=lambda c, s: key,
                                    cell=parse_cell(cell))
    rows = _outcomes(store, key, "gradings")
    return dg.MaterializeResult(metadata={
        "run_id": run_id, "rows": len(rows), "regraded": len(out.summary.regraded),
        "tasks_no_longer_in_suite": len(out.summary.gone), "suite_fingerprint": suite.fingerprint,
        "passed": sum(r[1] == "pass" for r in rows),
        "preview": dg.MetadataValue.md(_preview(rows)),
    })
