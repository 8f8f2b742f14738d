"""GPU kernel tasks: the agent writes each kernel while the model server is held (kernel_runs), the kernel grader
scores what it left while the GPU is held (kernel_gradings). Both are calls of the service `kbench run --suite
kernels` and `kbench regrade` use."""

from pathlib import Path

import dagster as dg

from gpu.kind import KernelTasks
from kbench_dagster import service
from kbench_dagster.cells import cell_settings, registered_model
from kbench_dagster.keys import parse_cell
from kbench_dagster.partitions import keys_of, run_partitions
from kbench_dagster.pools import GPU_POOL, MODEL_SERVER_POOL
from kbench_dagster.reporting.loaders import load_manifest
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings
from kbench_dagster.store import ResultsStore


class KernelSettings(dg.Config):
    tasks: str = ""  # kernel task ids, comma-separated; empty: every kernel task


def _kernels(wanted: str | None) -> KernelTasks:
    kind = KernelTasks()
    units = service.select_units(kind, wanted)
    return kind if len(units) == len(kind.units) else KernelTasks(units)


def _rows(store: ResultsStore, key: str) -> list[tuple]:
    return store.partition_rows("kernel_gradings", key, ("task", "outcome", "status", "score", "unit"))


def _preview(rows: list[tuple]) -> str:
    lines = ["| task | outcome | status | score |", "|---|---|---|---|"]
    return "\n".join(lines + [f"| {t} | {o} | {s or ''} | {'' if v is None else f'{v:.3g} {u}'} |"
                              for t, o, s, v, u in rows])


@dg.asset(group_name="kernels")
def kernel_tasks() -> dg.MaterializeResult:
    """The GPU kernel tasks (the agent's files and the grader's private references), fingerprinted."""
    kind = KernelTasks()
    rows = ["| task | family | metric | dtype |", "|---|---|---|---|"]
    rows += [f"| {t.id} | {t.family} | {t.metric} | {t.dtype} |" for t in kind.units]
    return dg.MaterializeResult(data_version=dg.DataVersion(kind.fingerprint),
                                metadata={"tasks": len(kind.units), "preview": dg.MetadataValue.md("\n".join(rows))})


@dg.asset(partitions_def=run_partitions, deps=[kernel_tasks], pool=MODEL_SERVER_POOL, group_name="kernels")
def kernel_runs(context: dg.AssetExecutionContext, config: KernelSettings, endpoints: ModelEndpoints,
                agent: AgentSettings, sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """Every kernel task written by the agent for one model@endpoint and cell, recorded; graded by kernel_gradings."""
    model_key, cell = keys_of(context)
    store = results_db.store()
    model_id, endpoint_name = registered_model(store, model_key)
    endpoint = endpoints.get(endpoint_name)
    kind = _kernels(config.tasks or None)
    settings = cell_settings(model_key, cell, kind, model_id, endpoint, agent, sandbox,
                             ",".join(t.id for t in kind.units), defer_grading=True)
    run = service.plan_run(settings, kind, api_key=endpoint.api_key)
    key = service.partition_store_key(agent.agent, model_key, cell, kind.name)
    done = service.run_and_store(run, store, store_as=lambda s, st: service.store_run_cell(s, st, key),
                                 say=context.log.warning)
    rows = _rows(store, key)
    return dg.MaterializeResult(metadata={
        "model": model_id, "endpoint": endpoint_name, "run_id": run.spec.run_id, "rows": len(rows),
        "ran_now": done.summary["ran"], "already_recorded": done.summary["already_done"],
        "suite_fingerprint": kind.fingerprint, "preview": dg.MetadataValue.md(_preview(rows))})


@dg.asset(partitions_def=run_partitions, deps=[kernel_runs], pool=GPU_POOL, group_name="kernels")
def kernel_gradings(context: dg.AssetExecutionContext, agent: AgentSettings, sandbox: SandboxSettings,
                    results_db: ResultsDB) -> dg.MaterializeResult:
    """Every kernel the agent wrote for one model@endpoint and cell, graded (status, score, device)."""
    model_key, cell = keys_of(context)
    store = results_db.store()
    key = service.partition_store_key(agent.agent, model_key, cell, KernelTasks.name)
    run_id = store.run_of(key)
    if run_id is None:
        raise dg.Failure(f"partition {model_key} {cell} has no kernel runs yet: materialize kernel_runs first")
    manifest = load_manifest(Path(agent.runs_root), run_id)
    if manifest is None:
        raise dg.Failure(f"run {run_id} has no manifest under {agent.runs_root}: its records are on another "
                         "machine or were moved; point the agent resource's runs_root at them")
    # the tasks the run was given, so its records are graded against the same suite version
    kind = _kernels(",".join(manifest["settings"]["tasks"]))
    out = service.regrade_and_store(Path(agent.runs_root), run_id, kind, store, sandbox.isolation_config(),
                                    sandbox.work_path(), key_of=lambda c, s: key, cell=parse_cell(cell))
    rows = _rows(store, key)
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r[2] or r[1]] = statuses.get(r[2] or r[1], 0) + 1
    return dg.MaterializeResult(metadata={
        "run_id": run_id, "rows": len(rows), "graded_now": len(out.summary.regraded), "statuses": statuses,
        "preview": dg.MetadataValue.md(_preview(rows))})
