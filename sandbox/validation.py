"""Prove a hidden test: it must fail on the untouched folder and pass on the reference solution."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from task_defs.models import Task
from sandbox.diskspace import RESERVE_BYTES, ensure_room, ran_full
from sandbox.grading import Grade, grade, missing_requirements
from sandbox.isolation import IsolationConfig
from sandbox.limits import AGENT_LIMITS, Limits
from sandbox.runner import run_session
from sandbox.workdirs import check_outside_repo, copy_tree_into, fresh_dir, private_copy

SOLVE_SCRIPT = "solve.sh"


class PrepareError(RuntimeError):
    """A task's own setup or reference script failed: a broken task, not an agent failure."""


def _run_script(task: Task, script: Path, workdir: Path, cfg: IsolationConfig | None, what: str) -> None:
    hidden = private_copy({script.name: script}, near=workdir)
    try:
        res = run_session(["bash", str(hidden / script.name)], workdir, limits=AGENT_LIMITS.with_(timeout_s=120),
                          cfg=cfg, ro_binds=[hidden], label=f"{what}:{task.id}", network=False)
    finally:
        shutil.rmtree(hidden, ignore_errors=True)
    if res.returncode != 0 or res.timed_out:
        raise PrepareError(f"{task.folder / script.name}: {what} script failed (exit {res.returncode}): {res.tail[-500:]}")


def prepare_workdir(task: Task, workdir: Path, cfg: IsolationConfig | None = None) -> Path:
    """A fresh work folder holding the task's setup files, as the agent first sees it."""
    workdir = fresh_dir(workdir)
    copy_tree_into(task.setup_dir, workdir)
    if task.setup_script.is_file():
        _run_script(task, task.setup_script, workdir, cfg, "setup")
    return workdir


def apply_reference(task: Task, workdir: Path, cfg: IsolationConfig | None = None) -> None:
    """Lay the reference solution over the work folder: its files, then its solve.sh if any."""
    for src in sorted(task.solution_dir.rglob("*")):
        rel = src.relative_to(task.solution_dir)
        if rel.as_posix() == SOLVE_SCRIPT or "__pycache__" in rel.parts or src.is_dir():
            continue
        dest = workdir / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    script = task.solution_dir / SOLVE_SCRIPT
    if script.is_file():
        _run_script(task, script, workdir, cfg, "reference")


@dataclass
class Validation:
    task_id: str
    status: Literal["ok", "fail", "skipped"]
    reason: str
    untouched: Grade | None = None
    reference: Grade | None = None
    duration_s: float = 0.0


def validate_task(
    task: Task,
    work_root: Path,
    cfg: IsolationConfig | None = None,
    keep_work: bool = False,
    test_limits: Limits | None = None,
) -> Validation:
    start = time.monotonic()
    missing = missing_requirements(task)
    if missing:
        return Validation(task.id, "skipped", f"requires {', '.join(missing)}, not found on this machine")
    base = Path(work_root) / task.id
    try:
        untouched_dir = prepare_workdir(task, base / "untouched", cfg)
        untouched = grade(task, untouched_dir, output_path=base / "untouched.tests.txt", cfg=cfg, limits=test_limits)
        reference_dir = prepare_workdir(task, base / "reference", cfg)
        apply_reference(task, reference_dir, cfg)
        reference = grade(task, reference_dir, output_path=base / "reference.tests.txt", cfg=cfg, limits=test_limits)
    except PrepareError as exc:
        return Validation(task.id, "fail", str(exc), duration_s=time.monotonic() - start)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        return Validation(task.id, "fail", f"the disk ran full at {base} ({exc.strerror}): that says nothing about "
                                           "the task; free space and validate again", duration_s=time.monotonic() - start)
    problems = []
    if untouched.outcome == "pass":
        problems.append("the hidden test passes on the untouched folder")
    if reference.outcome != "pass":
        out = (base / "reference.tests.txt")
        tail = out.read_text(errors="replace")[-600:] if out.exists() else ""
        problems.append(f"the reference solution gets {reference.outcome!r} {reference.detail}\n{tail}")
    full = ran_full({"work": base}) if problems else None
    if full:  # a test that could not write is no proof against the task
        problems = [f"{full}: that says nothing about the task; free space and validate again"]
    if not keep_work and not problems:
        shutil.rmtree(base, ignore_errors=True)
    if problems:
        problems.append(f"work folders kept in {base}")
    status = "fail" if problems else "ok"
    reason = "; ".join(problems) or f"untouched={untouched.outcome} reference=pass"
    return Validation(task.id, status, reason, untouched, reference, time.monotonic() - start)


def validate_tasks(
    tasks: list[Task],
    work_base: Path,
    cfg: IsolationConfig | None = None,
    workers: int = 2,
    keep_work: bool = False,
    on_result=None,
    test_limits: Limits | None = None,
) -> list[Validation]:
    """Validate tasks in parallel under a fresh folder in `work_base`; `on_result` sees each as it lands."""
    work_base = Path(work_base)
    work_base.mkdir(parents=True, exist_ok=True)
    ensure_room({"work": work_base}, RESERVE_BYTES)  # a test that cannot write proves nothing about its task
    root = check_outside_repo(Path(tempfile.mkdtemp(prefix=f"validate-{time.strftime('%Y%m%d-%H%M%S')}-", dir=work_base)))
    os.chmod(root, 0o755)
    results: list[Validation] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(validate_task, t, root, cfg, keep_work, test_limits) for t in tasks]
        for fut in as_completed(futures):
            v = fut.result()
            results.append(v)
            if on_result:
                on_result(v)
    if not keep_work and all(v.status != "fail" for v in results):
        shutil.rmtree(root, ignore_errors=True)
    order = {t.id: i for i, t in enumerate(tasks)}
    return sorted(results, key=lambda v: order[v.task_id])
