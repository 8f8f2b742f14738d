"""GPU kernel tasks and their gradings: an agent writes each kernel, the kernel grader scores it."""

import hashlib
from pathlib import Path

import dagster as dg

from gpu.kernel_runs import KernelRunSpec, run_kernel_tasks
from gpu.loader import load_kernel_suite
from kbench_dagster.ingest import kernel_rows, write_key
from kbench_dagster.pools import GPU_POOL
from kbench_dagster.partitions import keys_of, parse_cell, run_partitions
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings
from sandbox.conditions import select_conditions
from sandbox.runs import RunSpec



@dg.asset(group_name="kernels")
def kernel_tasks() -> dg.MaterializeResult:
    """The GPU kernel tasks (the agent's files and the grader's private references), fingerprinted."""
    tasks = load_kernel_suite()
    h = hashlib.sha256()
    for t in tasks:
        for f in sorted(p for p in t.folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(f"{t.id}/{f.relative_to(t.folder)}".encode() + f.read_bytes())
    rows = ["| task | family | metric | dtype |", "|---|---|---|---|"]
    rows += [f"| {t.id} | {t.family} | {t.metric} | {t.dtype} |" for t in tasks]
    return dg.MaterializeResult(data_version=dg.DataVersion(h.hexdigest()),
                                metadata={"tasks": len(tasks), "preview": dg.MetadataValue.md("\n".join(rows))})


@dg.asset(partitions_def=run_partitions, deps=[kernel_tasks], pool=GPU_POOL, group_name="kernels")
def kernel_gradings(context: dg.AssetExecutionContext, endpoints: ModelEndpoints, agent: AgentSettings,
                    sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """Every kernel task written by the agent for one model and cell, graded (status, score, device)."""
    model_key, cell = keys_of(context)
    store = results_db.store()
    found = store.model_of(model_key)
    if found is None:
        raise dg.Failure(f"model key {model_key!r} is not registered (new_model_release_sensor records models)")
    model_id, endpoint_name = found
    endpoint = endpoints.get(endpoint_name)
    cond, seed = parse_cell(cell)
    run = RunSpec(run_id=f"dg-{agent.agent}-{model_key}-kernels", model=model_id, conds=select_conditions(cond), tasks=[],
                  url=endpoint.url, seed_list=[seed], timeout_s=agent.timeout_s, agent=agent.agent,
                  tool_format=agent.tool_format, runs_root=Path(agent.runs_root), work_root=sandbox.work_path(),
                  api_key=endpoint.api_key, isolation=sandbox.isolation_config(), server_slots=endpoint.slots)
    wanted = {t.strip() for t in agent.kernel_tasks.split(",") if t.strip()}
    tasks = [t for t in load_kernel_suite() if not wanted or t.id in wanted]
    results = run_kernel_tasks(KernelRunSpec(run, tasks))
    store.replace_partition(write_key(run.run_id, f"kernels/{cell}"), {"kernel_gradings": kernel_rows(results)})
    statuses = {}
    for r in results:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    return dg.MaterializeResult(metadata={
        "rows": len(results), "statuses": statuses, "device": (results[0]["device"].get("name") if results else None),
        "preview": dg.MetadataValue.md("\n".join(["| task | status | score |", "|---|---|---|"] + [
            f"| {r['task']} | {r['status']} | {r['score']} |" for r in results]))})
