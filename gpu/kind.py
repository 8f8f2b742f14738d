"""Kernel tasks as a kind of work (sandbox/engine/kinds.py): an agent writes each kernel in the same sandbox, records
and run loop as every other task, and the kernel grader scores what it left.

The outcome is the gate's verdict in the shared vocabulary; the grader's own status, score and device travel
beside it under "kernel" and fill the kernel_gradings table.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from gpu.kernel_card import NAME
from gpu.loader import agent_files, load_kernel_suite, private_reference, render_prompt
from gpu.models import KernelTask
from sandbox.engine.kinds import Verdict
from sandbox.isolation.bwrap import IsolationConfig, python_runtime_dirs
from sandbox.isolation.workdirs import fresh_dir

# The grader's statuses in the shared outcome words: passing the correctness gate is a pass (a flagged speed is
# still correct work, and the flag is kept), a wrong or forbidden kernel is wrong, one that does not build or
# run is a crash; a device this machine lacks is skipped, never scored.
OUTCOME_OF_STATUS = {"ok": "pass", "flagged": "pass", "incorrect": "wrong", "cheat_rejected": "wrong",
                     "compile_error": "crash", "runtime_error": "crash", "timeout": "timeout",
                     "skipped_no_gpu": "skipped"}


def with_python_runtime(cfg: IsolationConfig) -> IsolationConfig:
    """The agent's sandbox plus this Python runtime (torch, triton) read-only and first on PATH, so the agent can
    run its kernel against reference.py before it is graded. The repository stays invisible."""
    return replace(cfg, extra_ro_binds=cfg.extra_ro_binds + tuple(python_runtime_dirs()),
                   path_prefix=(str(Path(sys.executable).parent),) + cfg.path_prefix)


def fingerprint(tasks: list[KernelTask]) -> str:
    """Over every file of every task, the agent's and the grader's private reference alike."""
    h = hashlib.sha256()
    for t in tasks:
        files = [f for f in t.folder.rglob("*") if f.is_file() and "__pycache__" not in f.parts]
        for f in sorted(files) + [private_reference(t.id)]:
            h.update(f"{t.id}/{f.name}".encode() + f.read_bytes())
    return h.hexdigest()


class KernelTasks:
    """The GPU kernel tasks; graded on CUDA where there is a device, else on the CPU path (small shapes)."""

    name = NAME
    runs_agent = True

    def __init__(self, tasks: list[KernelTask] | None = None, device: str | None = None):
        self._tasks = tasks or load_kernel_suite()
        self.device = device
        self.fingerprint = fingerprint(self._tasks)

    @property
    def units(self) -> list[KernelTask]:
        return list(self._tasks)

    def get(self, unit_id: str) -> KernelTask:
        for t in self._tasks:
            if t.id == unit_id:
                return t
        raise KeyError(f"no kernel task {unit_id!r}; known: {', '.join(t.id for t in self._tasks)}")

    def unit_fields(self, unit: KernelTask) -> dict:
        return {"category": "kernel", "tier": unit.family}

    def missing(self, unit: KernelTask) -> list[str]:
        return []  # a missing device is the grader's skipped_no_gpu, decided when grading

    def prepare(self, unit: KernelTask, workdir: Path, cfg: IsolationConfig) -> None:
        fresh_dir(workdir)
        for name, src in agent_files(unit).items():
            shutil.copy2(src, workdir / name)

    def prompts(self, unit: KernelTask) -> list[str]:
        return [render_prompt(unit)]

    def session_isolation(self, unit, cfg: IsolationConfig) -> IsolationConfig:
        return with_python_runtime(cfg)

    def timeout_s(self, unit: KernelTask, run_timeout_s: float) -> float:
        return run_timeout_s

    def grade(self, unit: KernelTask, workdir: Path, output_path: Path, cfg: IsolationConfig,
              log_path: Path | None) -> Verdict:
        kernel = Path(workdir) / unit.stub
        if not kernel.is_file() or kernel.is_symlink():
            detail = f"{unit.stub} is missing (or not a plain file) after the agent"
            output_path.write_text(detail + "\n")
            return Verdict("nofile", detail, 0.0, extra={"kernel": {"status": None, "reason": detail,
                                                                    "score": None, "unit": unit.unit}})
        from gpu.grader import grade  # torch loads only where a kernel is graded

        g = grade(workdir, unit, device=self.device)  # the folder: a kernel may import what lies beside it
        output_path.write_text(json.dumps(g, indent=2, default=str) + "\n")
        outcome = OUTCOME_OF_STATUS[g["status"]]
        summary = {"status": g["status"], "reason": g.get("reason", ""), "score": g.get("score"),
                   "unit": g.get("unit"), "device": g.get("device", {}),
                   "correct": bool(g.get("correctness", {}).get("passed")), "flags": g.get("flags", [])}
        detail = f"{g['status']}: {g.get('reason') or ''}".strip().rstrip(":")
        return Verdict(outcome, detail, float(g.get("elapsed_s") or 0.0), extra={"kernel": summary})
