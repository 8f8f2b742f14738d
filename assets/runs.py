"""Agent runs and their gradings, one partition per model x cell (condition and seed)."""


import json
import shutil
import time
from pathlib import Path

import dagster as dg

from kbench_dagster.ingest import cell_of, collect_rows, write_key
from kbench_dagster.partitions import keys_of, parse_cell, run_partitions
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings, SuiteSource
from sandbox.conditions import select_conditions
from sandbox.diskspace import ran_full
from sandbox.grading import grade
from sandbox.stops import DiskFull
from sandbox.trees import remove_tree
from sandbox.runs import RunSpec, Runner
from sandbox.workdirs import fresh_dir
from task_defs.loader import select

ENDPOINT_POOL = "model_server"


def run_id_for(agent: str, model_key: str) -> str:
    return f"dg-{agent}-{model_key}"


def _preview(rows: list[dict], outcome_key: str = "outcome") -> str:
    lines = ["| task | outcome | turns | tool-format errors |", "|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["task"])[:70]:
        lines.append(f"| {r['task']} | {r[outcome_key]} | {r.get('turns', '')} | {r.get('tool_format_errors', '')} |")
    return "\n".join(lines)


def _model(store, model_key: str) -> tuple[str, str]:
    found = store.model_of(model_key)
    if found is None:
        raise dg.Failure(f"model key {model_key!r} is not registered: add models through the "
                         "new_model_release_sensor or `kbench models add`, which records the model id and endpoint")
    return found


@dg.asset(partitions_def=run_partitions, pool=ENDPOINT_POOL, deps=["task_suites"], group_name="runs")
def agent_runs(context: dg.AssetExecutionContext, suite_source: SuiteSource, endpoints: ModelEndpoints,
               agent: AgentSettings, sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """Every task of the suite done by the agent for one model and cell, recorded and stored."""
    model_key, cell = keys_of(context)
    store = results_db.store()
    model_id, endpoint_name = _model(store, model_key)
    endpoint = endpoints.get(endpoint_name)
    cond, seed = parse_cell(cell)
    suite = suite_source.primary()
    spec = RunSpec(run_id=run_id_for(agent.agent, model_key), model=model_id, conds=select_conditions(cond),
                   tasks=select(suite, agent.tasks or None), url=endpoint.url, seed_list=[seed],
                   workers=min(agent.workers, endpoint.slots), timeout_s=agent.timeout_s, agent=agent.agent,
                   tool_format=agent.tool_format, runs_root=Path(agent.runs_root), work_root=sandbox.work_path(),
                   api_key=endpoint.api_key, isolation=sandbox.isolation_config(), server_slots=endpoint.slots)
    done = []
    runner = Runner(spec, suite, on_result=done.append)
    summary = runner.run()
    rows = collect_rows(Path(agent.runs_root) / spec.run_id, cond, seed)
    counts = store.replace_partition(write_key(spec.run_id, cell_of(cond, seed)),
                                     {k: rows[k] for k in ("attempts", "runs", "events_summary")})
    attempts = rows["attempts"]
    return dg.MaterializeResult(metadata={
        "model": model_id, "endpoint": endpoint_name, "run_id": spec.run_id, "rows": counts.get("attempts", 0),
        "server_slots": runner.spec.server_slots,
        "ran_now": summary["ran"], "already_recorded": summary["already_done"],
        "passed": sum(a["outcome"] == "pass" for a in attempts),
        "infra_failures": sum(bool(a.get("infra")) for a in attempts),
        "tool_format_errors": sum(a.get("tool_format_errors") or 0 for a in attempts),
        "suite_fingerprint": suite.fingerprint,
        "preview": dg.MetadataValue.md(_preview(attempts)),
    })


@dg.asset(partitions_def=run_partitions, deps=[agent_runs, "task_suites"], group_name="runs")
def gradings(context: dg.AssetExecutionContext, suite_source: SuiteSource, agent: AgentSettings,
             sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
    """The current outcome of every attempt: regraded from its stored final files when the hidden tests changed."""
    model_key, cell = keys_of(context)
    cond, seed = parse_cell(cell)
    suite = suite_source.primary()
    run_id = run_id_for(agent.agent, model_key)
    run_dir = Path(agent.runs_root) / run_id
    rows, regraded = [], 0
    for result_path in sorted(run_dir.glob(f"{cond}/*/s{seed}/result.json")):
        r = json.loads(result_path.read_text())
        row = {"run_id": run_id, "model": r["model"], "condition": cond, "task": r["task"], "seed": seed,
               "outcome": r["outcome"], "detail": r.get("detail"), "test_duration_s": r.get("test_duration_s"),
               "suite_fingerprint": r["suite_fingerprint"], "regraded": False, "graded_at": r.get("finished_at")}
        if r["outcome"] not in ("infra", "skipped") and r["suite_fingerprint"] != suite.fingerprint:
            row.update(_regrade(suite, r, result_path.parent, sandbox))
            regraded += 1
        rows.append(row)
    store = results_db.store()
    store.replace_partition(write_key(run_id, cell), {"gradings": rows})
    return dg.MaterializeResult(metadata={
        "rows": len(rows), "regraded": regraded, "suite_fingerprint": suite.fingerprint,
        "passed": sum(r["outcome"] == "pass" for r in rows),
        "preview": dg.MetadataValue.md(_preview(rows)),
    })


def _regrade(suite, result: dict, record: Path, sandbox: SandboxSettings) -> dict:
    """Grade the stored final files again with today's hidden test: no agent runs."""
    task = suite.get(result["task"])
    work = fresh_dir(sandbox.work_path() / "regrade" / result["run_id"] / result["condition"] / task.id / f"s{result['seed']}")
    shutil.copytree(record / "workdir", work, dirs_exist_ok=True, symlinks=True)
    out = record / f"tests.regraded.{suite.fingerprint[:12]}.txt"
    g = grade(task, work, output_path=out, cfg=sandbox.isolation_config())
    full = ran_full({"work": work, "runs": record})
    remove_tree(work, ignore_errors=True)  # agent code ran in the regrade too: any tree can be there
    if full:  # the verdict cannot be trusted: fail the partition, keep the gradings it had
        raise DiskFull(f"{full} (regrading {task.id}); free space and materialize the partition again")
    return {"outcome": g.outcome, "detail": g.detail, "test_duration_s": round(g.duration_s, 3),
            "suite_fingerprint": suite.fingerprint, "regraded": True, "graded_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
