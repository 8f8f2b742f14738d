"""Grade one kernel submission for one task: the gate (correctness) first, then speed.

The grader's process generates every input from a secret seed drawn per grading, computes the expected outputs
with its private copy of the reference, and keeps them; the submission runs in its own process (gpu/worker.py),
started fresh per submission in a fresh build folder with its own compiler caches, and killed on timeout. The
outputs it writes are compared here, so nothing in the submission's process can change the verdict except its
outputs. Statuses: compile_error, runtime_error, timeout, incorrect, cheat_rejected, flagged, ok, skipped_no_gpu.

The parts, in the order a grading meets them: gpu/intake.py (the submission into a build folder, its language),
gpu/grading.py (the run: gate, timed calls, the grader's files checked), gpu/channel.py (the submission's process
and its replies), gpu/cases.py (inputs and expected outputs), gpu/audit.py (score and flags)."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from gpu import device as devmod
from gpu.config import GradeConfig
from gpu.grading import Grading
from gpu.intake import detect_language, into_build, reference_submission, triton_available, variant_submission
from gpu.integrity import FileGuard
from gpu.loader import get_task, private_reference
from gpu.models import STATUSES, KernelTask
from sandbox.isolation.trees import remove_tree

# callers import these from here, whichever module behind it holds them
__all__ = ["STATUSES", "GradeConfig", "detect_language", "grade", "reference_submission", "triton_available",
           "variant_submission"]


def grade(submission: Path | str, task: KernelTask | str, *, role: str = "candidate", device: str | None = None,
          private_root: Path | None = None, config: GradeConfig | None = None, keep_build: bool = False) -> dict:
    """Grade `submission` (a file: the stub, filled in; or a folder holding it) for `task`. Returns a dict ready
    to store. role='reference' only lifts the forbidden-op rule (the eager reference may call library ops)."""
    t0 = time.monotonic()
    task = task if isinstance(task, KernelTask) else get_task(task, private_root=private_root)
    dev = devmod.pick_device(device)
    cfg = config or GradeConfig.for_device(dev)
    info = devmod.device_info(dev)
    result: dict = {
        "task": task.id, "status": None, "reason": "", "score": None, "unit": task.unit, "metric": task.metric,
        "role": role, "submission": str(submission), "language": None, "device": info, "shapes": [],
        "correctness": {"cases": 0, "passed": False}, "flags": [], "config": asdict(cfg), "seed": None,
    }

    def finish(status: str, reason: str = "", score: float | None = None) -> dict:
        assert status in STATUSES
        result.update(status=status, reason=reason,
                      score=(0.0 if status not in ("ok", "flagged", "skipped_no_gpu") else score))
        result["elapsed_s"] = round(time.monotonic() - t0, 3)
        return result

    build = Path(tempfile.mkdtemp(prefix=f"kgrade-{task.id}-"))
    try:
        refused = into_build(Path(submission), build, task.stub)
        if refused:
            return finish("compile_error", refused)
        lang = detect_language(build)
        result["language"] = lang
        interpret = False
        if dev == "cpu" and lang == "cuda":
            return finish("skipped_no_gpu", "CUDA C++ submissions need a GPU to build and run")
        if dev == "cpu" and lang == "triton":
            if not triton_available():
                return finish("skipped_no_gpu", "Triton is not installed here, and its CPU interpreter needs it")
            interpret = True
        ref_path = private_reference(task.id, private_root)
        # In the sandbox the worker sees none of the grader's files, so only this task's reference is re-checked;
        # out of it (on a GPU, for now) it runs with our rights, so every file of ours is.
        guard = FileGuard([ref_path] if cfg.sandboxed else [Path(__file__).parent, ref_path.parent.parent])
        try:
            return Grading(task=task, role=role, dev=dev, cfg=cfg, build=build, interpret=interpret, result=result,
                           finish=finish, ref_path=ref_path, guard=guard).run()
        finally:
            guard.restore()  # whatever ended the grading, even an exception, no edit of ours outlives it
    finally:
        if keep_build:
            result["build"] = str(build)
        else:
            remove_tree(build, ignore_errors=True)  # the submission's process could nest folders past recursion
