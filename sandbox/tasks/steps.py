"""Tasks graded step by step (Harbor's multi-step tasks; task_defs.models.Step): before step i's agent session its
upload/ is laid over the work folder and its setup.sh run; right after it, step i's own hidden test grades the folder
as the agent left it, in the judge's usual sandbox. A step whose reward is below its min_reward ends the attempt: the
steps after it are not run. The attempt passes when every step passed; its evidence names each step's outcome.

Each step's grade is kept by the harness, outside the work folder (the attempt's record folder), so nothing a later
session does can change an earlier step's verdict.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, TEST_LIMITS, Limits
from sandbox.isolation.session import run_session
from sandbox.isolation.workdirs import copy_tree_into
from sandbox.tasks.grading import Grade, missing_requirements, run_hidden_test, task_isolation
from sandbox.tasks.validation import PrepareError, apply_variant
from task_defs.loader import task_files
from task_defs.models import Task

RESULTS = "steps.jsonl"  # one line a graded step, in the attempt's record folder
SETUP = "setup.sh"
REWARD = re.compile(r"^reward (.+) \(test\.sh exited -?\d+\)$", re.MULTILINE)  # the Harbor check's last line


@dataclass
class StepGrade:
    step: str
    outcome: str
    reward: float
    detail: str
    duration_s: float

    def line(self) -> str:
        return json.dumps(self.__dict__)


def lay_step(task: Task, i: int, workdir: Path, cfg: IsolationConfig | None = None) -> None:
    """Before step i's session: its upload/ over the work folder, then its setup.sh, run from the work folder as
    Harbor runs it (it may remove itself) and never left there (PrepareError if it fails)."""
    folder = task.step_dir(i)
    copy_tree_into(folder / "upload", workdir)
    script = folder / SETUP
    if not script.is_file():
        return
    shutil.copyfile(script, workdir / SETUP)
    try:
        res = run_session(["bash", SETUP], workdir, limits=AGENT_LIMITS.with_(timeout_s=120),
                          cfg=task_isolation(task, cfg), label=f"setup:{task.id}:{task.steps[i].name}", network=False)
    finally:
        (workdir / SETUP).unlink(missing_ok=True)
    if res.returncode != 0 or res.timed_out:
        raise PrepareError(f"{script}: step {task.steps[i].name}'s setup failed (exit {res.returncode}): "
                           f"{res.tail[-500:]}")


def _reward(outcome: str, output: Path | None) -> float:
    """A pass is a full reward; otherwise the reward test.sh wrote, where the output says it (else 0)."""
    if outcome == "pass":
        return 1.0
    text = output.read_text(encoding="utf-8", errors="replace") if output and output.is_file() else ""
    found = REWARD.findall(text)
    try:
        values = [float(v.split("=")[-1]) for v in found[-1].split()] if found else []
    except ValueError:
        return 0.0
    return min(values) if values else 0.0


def grade_step(task: Task, i: int, workdir: Path, *, output_path: Path | None, cfg: IsolationConfig | None,
               log_path: Path | None = None, limits: Limits | None = None) -> StepGrade:
    """Step i's hidden test against the work folder as it is now."""
    step = task.steps[i]
    test_dir = task.step_dir(i) / Path(task.test).parent
    files = {f.relative_to(test_dir).as_posix(): f.read_bytes() for f in task_files(test_dir)}
    timeout = float(step.test_timeout or task.test_timeout)
    outcome, detail, session = run_hidden_test(
        Path(task.test).name, files, workdir, limits=(limits or TEST_LIMITS).with_(timeout_s=timeout),
        cfg=task_isolation(task, cfg), output_path=output_path, log_path=log_path,
        label=f"test:{task.id}:{step.name}", requirements=tuple(task.verifier_requires))
    return StepGrade(step.name, outcome, _reward(outcome, output_path), detail, round(session.duration_s, 3))


def stops_after(task: Task, i: int, g: StepGrade) -> bool:
    """Harbor's early stop: below the step's min_reward (a full reward where it names none), no later step runs."""
    need = task.steps[i].min_reward
    return g.reward < (1.0 if need is None else need) and i + 1 < len(task.steps)


def record(folder: Path, g: StepGrade, first: bool) -> None:
    """Keep a step's grade; the first step's starts the file afresh (an attempt run again keeps no stale grade)."""
    with open(folder / RESULTS, "w" if first else "a", encoding="utf-8") as fh:
        fh.write(g.line() + "\n")


def recorded(folder: Path) -> list[StepGrade]:
    path = folder / RESULTS
    if not path.is_file():
        return []
    return [StepGrade(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def verdict(task: Task, grades: list[StepGrade]) -> tuple[str, str]:
    """(outcome, evidence) of the whole attempt: pass when every step passed; otherwise the first step that did
    not pass decides (wrong, crash or timeout), and steps never graded are named as such."""
    by_name = {g.step: g for g in grades}
    parts = []
    for step in task.steps:
        g = by_name.get(step.name)
        parts.append(f"{step.name} {g.outcome} (reward {g.reward:g})" if g else f"{step.name} not run")
    first_bad = next((g for g in grades if g.outcome != "pass"), None)
    if len(grades) == len(task.steps) and first_bad is None:
        return "pass", "steps: " + ", ".join(parts)
    outcome = first_bad.outcome if first_bad else "wrong"
    why = f"; {first_bad.step}: {first_bad.detail}" if first_bad and first_bad.detail else ""
    return outcome, "steps: " + ", ".join(parts) + why


def grade_reference(task: Task, workdir: Path, out: Path, cfg: IsolationConfig | None,
                    limits: Limits | None) -> Grade:
    """What the oracle does, step by step: step i's upload and setup, its solution, its hidden test."""
    start, grades = time.monotonic(), []
    missing = missing_requirements(task)
    if missing:
        return Grade("skipped", f"requires {', '.join(missing)}", 0.0)
    for i in range(len(task.steps)):
        lay_step(task, i, workdir, cfg)
        apply_variant(task, task.step_dir(i) / "solution", workdir, cfg)
        g = grade_step(task, i, workdir, output_path=out.with_suffix(f".{i}.txt"), cfg=cfg, limits=limits)
        grades.append(g)
        if g.outcome != "pass":
            break
    outcome, detail = verdict(task, grades)
    out.write_text(detail + "\n", encoding="utf-8")
    return Grade(outcome, detail, time.monotonic() - start)


def grade_untouched(task: Task, workdir: Path, out: Path, cfg: IsolationConfig | None,
                    limits: Limits | None) -> Grade:
    """The first step's hidden test on the folder as its session would start: it must not pass."""
    lay_step(task, 0, workdir, cfg)
    g = grade_step(task, 0, workdir, output_path=out, cfg=cfg, limits=limits)
    return Grade(g.outcome, g.detail, g.duration_s)

