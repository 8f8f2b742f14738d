"""Prove a hidden test: it fails on the untouched folder and on every shipped mutant, and passes on the reference
solution and on every correct alternative."""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sandbox.isolation.bwrap import IsolationConfig, check_work_mounts
from sandbox.isolation.diskspace import RESERVE_BYTES, ensure_room, ran_full
from sandbox.isolation.limits import AGENT_LIMITS, Limits
from sandbox.isolation.session import run_session
from sandbox.isolation.workdirs import check_outside_repo, copy_tree_into, fresh_dir, private_copy
from sandbox.tasks.grading import Grade, grade, missing_requirements, task_isolation
from task_defs.models import VARIANT_NOTE, Task, variant_note

SOLVE_SCRIPT = "solve.sh"


class PrepareError(RuntimeError):
    """A task's own setup or reference script failed: a broken task, not an agent failure."""


def _run_script(task: Task, script: Path, workdir: Path, cfg: IsolationConfig | None, what: str) -> None:
    hidden = private_copy({script.name: script}, near=workdir)
    try:
        res = run_session(["bash", str(hidden / script.name)], workdir, limits=AGENT_LIMITS.with_(timeout_s=120),
                          cfg=task_isolation(task, cfg), ro_binds=[hidden], label=f"{what}:{task.id}",
                          network=False)
    finally:
        shutil.rmtree(hidden, ignore_errors=True)
    if res.returncode != 0 or res.timed_out:
        raise PrepareError(f"{task.folder / script.name}: {what} script failed (exit {res.returncode}): "
                           f"{res.tail[-500:]}")


def prepare_workdir(task: Task, workdir: Path, cfg: IsolationConfig | None = None) -> Path:
    """A fresh work folder holding the task's setup files, as the agent first sees it."""
    try:  # where the task sees it must not hide it (a work root under /tmp, for a task that works in /tmp)
        check_work_mounts(Path(workdir).resolve(), tuple((rel, inside) for inside, rel in task.mounts.items()))
    except ValueError as exc:
        raise PrepareError(str(exc)) from None
    workdir = fresh_dir(workdir)
    at = next((inside for inside, rel in task.mounts.items() if rel == "."), None)
    if task.image and at:  # what the task's image holds where its sessions see the work folder
        from sandbox.containers.task_images import workdir_snapshot

        copy_tree_into(workdir_snapshot(task.image, at), workdir)
    copy_tree_into(task.setup_dir, workdir)
    if task.setup_script.is_file():
        _run_script(task, task.setup_script, workdir, cfg, "setup")
    return workdir


def apply_variant(task: Task, folder: Path, workdir: Path, cfg: IsolationConfig | None = None) -> None:
    """Lay a solution folder over the work folder: its files (not solve.sh, not the note), then solve.sh if any."""
    for src in sorted(folder.rglob("*")):
        rel = src.relative_to(folder)
        if rel.as_posix() in (SOLVE_SCRIPT, VARIANT_NOTE) or "__pycache__" in rel.parts or src.is_dir():
            continue
        dest = workdir / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    script = folder / SOLVE_SCRIPT
    if script.is_file():
        _run_script(task, script, workdir, cfg,
                    "reference" if folder == task.solution_dir else f"variant {folder.name}")


def apply_reference(task: Task, workdir: Path, cfg: IsolationConfig | None = None) -> None:
    """Lay the reference solution over the work folder."""
    apply_variant(task, task.solution_dir, workdir, cfg)


CASE_LINE = re.compile(r"^(PASS|FAIL|CRASH|TIMEOUT) ([A-Za-z_][A-Za-z0-9_]*)\b")


def case_results(output: Path) -> dict[str, str]:
    """Per-case verdicts from a hidden test's output (the harness prints PASS/FAIL/CRASH/TIMEOUT NAME)."""
    if not output.exists():
        return {}
    found: dict[str, str] = {}
    for line in output.read_text(encoding="utf-8", errors="replace").splitlines():
        m = CASE_LINE.match(line)
        if m:
            found[m.group(2)] = m.group(1).lower()
    return found


@dataclass
class Variant:
    """One graded folder: the untouched one, the reference, a mutant or a correct alternative."""

    kind: Literal["untouched", "reference", "mutant", "alternative"]
    name: str
    note: str
    grade: Grade
    cases: dict[str, str]  # case name -> pass | fail | crash | timeout (empty when no case ran, e.g. nofile)

    @property
    def as_expected(self) -> bool:
        passed = self.grade.outcome == "pass"
        return passed if self.kind in ("reference", "alternative") else not passed

    @property
    def failed_cases(self) -> set[str]:
        return {c for c, v in self.cases.items() if v != "pass"}


@dataclass
class Validation:
    task_id: str
    status: Literal["ok", "fail", "skipped"]
    reason: str
    variants: list[Variant] = field(default_factory=list)
    duration_s: float = 0.0

    def _one(self, kind: str) -> Variant | None:
        return next((v for v in self.variants if v.kind == kind), None)

    @property
    def untouched(self) -> Grade | None:
        v = self._one("untouched")
        return v.grade if v else None

    @property
    def reference(self) -> Grade | None:
        v = self._one("reference")
        return v.grade if v else None

    def of_kind(self, kind: str) -> list[Variant]:
        return [v for v in self.variants if v.kind == kind]

    @property
    def mutants_killed(self) -> tuple[int, int]:
        mutants = self.of_kind("mutant")
        return sum(v.as_expected for v in mutants), len(mutants)

    @property
    def summary(self) -> str:
        """untouched=nofile reference=pass mutants 3/3 killed alternatives 1/1 pass"""
        parts = [f"untouched={self.untouched.outcome}" if self.untouched else "",
                 f"reference={self.reference.outcome}" if self.reference else ""]
        killed, total = self.mutants_killed
        if total:
            parts.append(f"mutants {killed}/{total} killed")
        alts = self.of_kind("alternative")
        if alts:
            parts.append(f"alternatives {sum(v.as_expected for v in alts)}/{len(alts)} pass")
        return " ".join(p for p in parts if p)


def grade_variant(task: Task, kind: str, folder: Path | None, base: Path, cfg, test_limits) -> Variant:
    name = folder.name if folder is not None and kind in ("mutant", "alternative") else kind
    label = name if kind in ("untouched", "reference") else f"{kind}-{name}"
    workdir = prepare_workdir(task, base / label, cfg)
    out = base / f"{label}.tests.txt"
    if task.steps:  # graded step by step: the first step untouched, or every step with its own solution
        from sandbox.tasks import steps

        g = (steps.grade_reference if folder is not None else steps.grade_untouched)(task, workdir, out, cfg,
                                                                                     test_limits)
        return Variant(kind, name, "", g, {})  # type: ignore[arg-type]
    if folder is not None:
        apply_variant(task, folder, workdir, cfg)
    g = grade(task, workdir, output_path=out, cfg=cfg, limits=test_limits)
    note = variant_note(folder) if kind in ("mutant", "alternative") and folder is not None else ""
    return Variant(kind, name, note, g, case_results(out))  # type: ignore[arg-type]


def _problem(v: Variant, base: Path) -> str:
    if v.kind == "untouched":
        return "the hidden test passes on the untouched folder"
    if v.kind == "mutant":
        return f"mutant {v.name} ({v.note}) passes: the hidden test misses that mistake"
    out = base / f"{v.name if v.kind == 'reference' else f'{v.kind}-{v.name}'}.tests.txt"
    tail = out.read_text(errors="replace")[-600:] if out.exists() else ""
    who = "the reference solution" if v.kind == "reference" else f"correct alternative {v.name} ({v.note})"
    return f"{who} gets {v.grade.outcome!r} {v.grade.detail}\n{tail}"


def has_reference(task: Task) -> bool:
    """A reference to prove the hidden test by: solution/ holds a file (or each step's solution/ does)."""
    folders = [task.step_dir(i) / "solution" for i in range(len(task.steps))] if task.steps else [task.solution_dir]
    return all(any(p.is_file() for p in f.rglob("*")) for f in folders)


def validate_task(
    task: Task,
    work_root: Path,
    cfg: IsolationConfig | None = None,
    keep_work: bool = False,
    test_limits: Limits | None = None,
) -> Validation:
    """The untouched folder and every mutant must fail, the reference and every alternative must pass."""
    start = time.monotonic()
    missing = missing_requirements(task)
    if missing:
        return Validation(task.id, "skipped", f"requires {', '.join(missing)}, not found on this machine")
    base = Path(work_root) / task.id
    if not has_reference(task):  # written or imported without one (a set made for training): nothing to prove by
        return Validation(task.id, "fail", "no reference solution (solution/ is empty): the hidden test cannot be "
                                           "proven, though the task can still be run and graded")
    plan = [("untouched", None), ("reference", task.solution_dir)]
    plan += [("mutant", d) for d in task.mutant_dirs] + [("alternative", d) for d in task.alternative_dirs]
    try:
        variants = [grade_variant(task, kind, folder, base, cfg, test_limits) for kind, folder in plan]
    except PrepareError as exc:
        return Validation(task.id, "fail", str(exc), duration_s=time.monotonic() - start)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        return Validation(task.id, "fail", f"the disk ran full at {base} ({exc.strerror}): that says nothing about "
                                           "the task; free space and validate again",
                          duration_s=time.monotonic() - start)
    problems = [_problem(v, base) for v in variants if not v.as_expected] + _swe_problems(variants)
    full = ran_full({"work": base}) if problems else None
    if full:  # a test that could not write is no proof against the task
        problems = [f"{full}: that says nothing about the task; free space and validate again"]
    if not keep_work and not problems:
        shutil.rmtree(base, ignore_errors=True)
    if problems:
        problems.append(f"work folders kept in {base}")
    result = Validation(task.id, "fail" if problems else "ok", "", variants, time.monotonic() - start)
    result.reason = "; ".join(problems) or result.summary
    return result


def _swe_problems(variants: list[Variant]) -> list[str]:
    """SWE-style cases (task_defs/importers/swe.py): on the untouched folder every fail_to_pass case must fail and
    every pass_to_pass case pass; the reference passing them all is the usual check."""
    untouched = next((v for v in variants if v.kind == "untouched"), None)
    cases = untouched.cases if untouched else {}
    return ([f"{c} passes on the untouched folder: it proves no fix" for c, r in cases.items()
             if c.startswith("fail_to_pass_") and r == "pass"]
            + [f"{c} fails on the untouched folder: it must pass before and after the fix ({r})"
               for c, r in cases.items() if c.startswith("pass_to_pass_") and r != "pass"])


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
    root = check_outside_repo(Path(tempfile.mkdtemp(prefix=f"validate-{time.strftime('%Y%m%d-%H%M%S')}-",
                                                    dir=work_base)))
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
