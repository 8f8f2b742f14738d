"""Work through the chat API, one partition per model@endpoint x cell like the agent runs: the text jobs
(textjob_replies) and the breakdown's three ways (breakdown_answers); the tool-use trials are in assets/trials.py.
Thin calls of the service that `kbench textjobs` and `kbench breakdown` use."""

import dagster as dg

from kbench_dagster.cells import cell_asset, run_cell
from kbench_dagster.partitions import run_partitions
from kbench_dagster.pools import MODEL_SERVER_POOL
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings
from sandbox.chatwork.breakdown import KINDS, WAYS
from sandbox.chatwork.textjobs import TextJobs
from sandbox.engine.spec import API_AGENT
from task_defs.breakdown.jobs import load_breakdown_jobs


class TextJobSettings(dg.Config):
    only: str = ""  # text jobs, comma-separated; empty: every job
    limit: int = 0  # the first K items of each job; 0: all


class BreakdownSettings(dg.Config):
    only: str = ""  # breakdown jobs, comma-separated; empty: every job
    prompts: str = "tested"  # the wording: tested or first


def _text_jobs(settings: TextJobSettings, agent: AgentSettings, endpoint) -> tuple:
    kind = TextJobs()
    return kind, kind.select(settings.only or None, settings.limit or None), {}


textjob_replies = cell_asset(
    "textjob_replies", "textjob_replies", "job", _text_jobs, settings=TextJobSettings,
    description="Every text job item asked of one model@endpoint in one cell, each reply scored and stored as a row.")


@dg.asset(partitions_def=run_partitions, pool=MODEL_SERVER_POOL, group_name="language")
def breakdown_answers(context: dg.AssetExecutionContext, config: BreakdownSettings, endpoints: ModelEndpoints,
                      agent: AgentSettings, sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """The breakdown jobs asked of one model@endpoint in one cell three ways (agent, one prompt, one question per
    item), one row per item answer."""
    names = [n.strip() for n in config.only.split(",") if n.strip()]
    jobs = [j for j in load_breakdown_jobs() if not names or j.id in names]
    meta, lines = {}, ["| way | job | items right |", "|---|---|---|"]
    for way in WAYS:
        kind = KINDS[way](config.prompts, jobs)
        store, key, done, model_id, endpoint_name = run_cell(
            context, kind, kind.units, agent.agent if way == "agent" else API_AGENT, endpoints, agent, sandbox,
            results_db)
        per_job: dict[str, list[bool]] = {}
        for job, right in store.partition_rows("breakdown_answers", key, ("job", "right")):
            per_job.setdefault(job, []).append(bool(right))
        lines += [f"| {way} | {j} | {sum(r)}/{len(r)} |" for j, r in per_job.items()]
        meta[f"{way}_right"] = sum(sum(r) for r in per_job.values())
        meta[f"{way}_run_id"] = done.spec.run_id
    return dg.MaterializeResult(metadata={**meta, "model": model_id, "endpoint": endpoint_name,
                                          "prompts": config.prompts,
                                          "per_job": dg.MetadataValue.md("\n".join(lines))})
