"""Work through the chat API, one partition per model@endpoint x cell like the agent runs: the text jobs
(textjob_replies) and the breakdown's three ways (breakdown_answers); the tool-use trials are in assets/trials.py.
Thin calls of the service that `kbench textjobs` and `kbench breakdown` use."""

import dagster as dg

from assets.runs import cell_settings, registered_model
from kbench_dagster import service
from kbench_dagster.partitions import keys_of, run_partitions
from kbench_dagster.pools import MODEL_SERVER_POOL
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings
from sandbox.chatwork.breakdown import KINDS, WAYS
from sandbox.chatwork.textjobs import TextJobs
from sandbox.engine.spec import API_AGENT
from task_defs.breakdown.jobs import load_breakdown_jobs


def run_cell(context, kind, units, agent_name, endpoints, agent, sandbox, results_db):
    model_key, cell = keys_of(context)
    store = results_db.store()
    model_id, endpoint_name = registered_model(store, model_key)
    endpoint = endpoints.get(endpoint_name)
    settings = cell_settings(model_key, cell, kind, model_id, endpoint, agent, sandbox,
                             ",".join(u.id for u in units), agent_name=agent_name)
    spec, kind = service.build_spec(settings, kind, api_key=endpoint.api_key)
    key = service.partition_store_key(agent_name, model_key, cell, kind.name)
    done = service.run_and_store(spec, kind, store, store_as=lambda s, st: service.store_run_cell(s, st, key),
                                 say=context.log.warning)
    return store, key, done, model_id, endpoint_name


@dg.asset(partitions_def=run_partitions, pool=MODEL_SERVER_POOL, group_name="language")
def textjob_replies(context: dg.AssetExecutionContext, endpoints: ModelEndpoints, agent: AgentSettings,
                    sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """Every text job item asked of one model@endpoint in one cell, each reply scored and stored as a row."""
    kind = TextJobs()
    units = kind.select(agent.textjobs_only or None, agent.textjobs_limit or None)
    store, key, done, model_id, endpoint_name = run_cell(context, kind, units, API_AGENT, endpoints, agent,
                                                          sandbox, results_db)
    _, rows = store.query("SELECT job, count(*), sum(passed::INT), sum((parse = 'invalid')::INT) "
                          "FROM textjob_replies WHERE partition_key = ? GROUP BY job ORDER BY job", [key])
    table = ["| job | replies | passed | invalid |", "|---|---|---|---|"] + [f"| {j} | {n} | {p} | {i} |"
                                                                            for j, n, p, i in rows]
    return dg.MaterializeResult(metadata={
        "model": model_id, "endpoint": endpoint_name, "run_id": done.spec.run_id, "rows": sum(r[1] for r in rows),
        "passed": sum(r[2] or 0 for r in rows), "ran_now": done.summary["ran"],
        "suite_fingerprint": kind.fingerprint, "per_job": dg.MetadataValue.md("\n".join(table))})


@dg.asset(partitions_def=run_partitions, pool=MODEL_SERVER_POOL, group_name="language")
def breakdown_answers(context: dg.AssetExecutionContext, endpoints: ModelEndpoints, agent: AgentSettings,
                      sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """The breakdown jobs asked of one model@endpoint in one cell three ways (agent, one prompt, one question per
    item), one row per item answer."""
    names = [n.strip() for n in agent.breakdown_only.split(",") if n.strip()]
    jobs = [j for j in load_breakdown_jobs() if not names or j.id in names]
    meta, lines = {}, ["| way | job | items right |", "|---|---|---|"]
    for way in WAYS:
        kind = KINDS[way](agent.breakdown_prompts, jobs)
        store, key, done, model_id, endpoint_name = run_cell(
            context, kind, kind.units, agent.agent if way == "agent" else API_AGENT, endpoints, agent, sandbox,
            results_db)
        _, rows = store.query("SELECT job, sum(\"right\"::INT), count(*) FROM breakdown_answers "
                              "WHERE partition_key = ? GROUP BY job ORDER BY job", [key])
        lines += [f"| {way} | {j} | {r}/{n} |" for j, r, n in rows]
        meta[f"{way}_right"] = sum(r[1] or 0 for r in rows)
        meta[f"{way}_run_id"] = done.spec.run_id
    return dg.MaterializeResult(metadata={**meta, "model": model_id, "endpoint": endpoint_name,
                                          "prompts": agent.breakdown_prompts,
                                          "per_job": dg.MetadataValue.md("\n".join(lines))})
