"""An agent writes a kernel: the same agents, sandbox and records as `kbench run`, graded by the kernel grader.

Records: runs/RUNID/kernels/COND/TASK/sK/ with events.jsonl, the submitted kernel file, grading.json (the
grader's dict) and result.json, renamed into place last like every run record.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from gpu.grader import grade
from gpu.loader import agent_files, render_prompt
from gpu.models import KernelTask
from sandbox.agents.record import EventLog
from sandbox.diskspace import ensure_room, ran_full
from sandbox.isolation import IsolationConfig, python_runtime_dirs
from sandbox.records import write_json_atomic
from sandbox.runs import RunSpec, open_agent, server_slots_of, session_slot
from sandbox.trees import remove_tree
from sandbox.workdirs import check_outside_repo, default_work_root, fresh_dir


@dataclass
class KernelRunSpec:
    run: RunSpec  # model, url, agent, one condition, one seed, limits, isolation, runs_root, work_root
    tasks: list[KernelTask]
    device: str | None = None  # None: CUDA when present, else the CPU path


def with_python_runtime(cfg: IsolationConfig) -> IsolationConfig:
    """The agent's sandbox plus this Python runtime (torch, triton) read-only and first on PATH, so the agent can
    run its kernel against reference.py before it is graded. The repository stays invisible."""
    return replace(cfg, extra_ro_binds=cfg.extra_ro_binds + tuple(python_runtime_dirs()),
                   path_prefix=(str(Path(sys.executable).parent),) + cfg.path_prefix)


def kernel_record_dir(runs_root: Path, run_id: str, cond: str, task: str, seed: int) -> Path:
    return Path(runs_root) / run_id / "kernels" / cond / task / f"s{seed}"


def run_kernel_tasks(spec: KernelRunSpec, on_result=None) -> list[dict]:
    """Each kernel task once for the spec's condition and seed; a task with a result.json is skipped."""
    run = spec.run
    cond, seed = run.conds[0], (run.seed_list or [1])[0]
    run_dir = Path(run.runs_root) / run.run_id
    work_root = check_outside_repo((run.work_root or default_work_root()) / run.run_id / "kernels")
    out = []
    slots = server_slots_of(run)
    with open_agent(run, run_dir) as agent:
        for task in spec.tasks:
            dest = kernel_record_dir(run.runs_root, run.run_id, cond.name, task.id, seed)
            if (dest / "result.json").exists():
                out.append(json.loads((dest / "result.json").read_text()))
                continue
            # the same rule as agent runs: start only with room; a disk that runs full makes the attempt infra
            places = {"work": work_root, "runs": run_dir}
            ensure_room(places, run.room_needed())
            partial = dest.with_name(dest.name + ".partial")
            remove_tree(partial, ignore_errors=True)
            partial.mkdir(parents=True)
            workdir = fresh_dir(work_root / cond.name / task.id / f"s{seed}")
            for name, src in agent_files(task).items():
                shutil.copy2(src, workdir / name)
            events = EventLog(partial / "events.jsonl")
            started = time.strftime("%Y-%m-%dT%H:%M:%S")
            limits = run.limits.with_(timeout_s=run.timeout_s)
            with session_slot(slots, events):
                stats = agent.run(render_prompt(task), workdir, cond, with_python_runtime(run.isolation), limits,
                                  events, run_dir / "watchdog.log")
            kernel = workdir / task.stub
            infra = stats.infra_error or ran_full(places)
            if infra:
                graded = {"status": "infra", "reason": infra, "score": None, "unit": task.unit, "device": {}}
            else:
                graded = grade(kernel, task, device=spec.device)
                if kernel.exists():
                    shutil.copy2(kernel, partial / task.stub)
            write_json_atomic(partial / "grading.json", graded)
            result = {"run_id": run.run_id, "model": run.model, "agent": run.agent, "condition": cond.name,
                      "task": task.id, "seed": seed, "family": task.family, "status": graded["status"],
                      "reason": graded.get("reason", ""), "score": graded.get("score"), "unit": graded.get("unit"),
                      "device": graded.get("device", {}), "infra_error": infra,
                      "turns": stats.turns, "tool_calls": stats.tool_calls,
                      "tool_format_errors": stats.tool_format_errors, "duration_s": round(stats.duration_s, 3),
                      "started_at": started, "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
            write_json_atomic(partial / "result.json", result)
            remove_tree(dest, ignore_errors=True)
            partial.rename(dest)
            if not run.keep_work:
                remove_tree(workdir, ignore_errors=True)  # the agent's tree: any depth
            out.append(result)
            if on_result:
                on_result(result)
    return out
