"""A Harbor multi-step task (task.toml [[steps]], steps/<name>/) as a fixture graded step by step.

Each step has its instruction.md, its tests/ (laid over the task's shared tests/, so a helper there is seen at
/tests as Harbor merges them), its solution/solve.sh, and optionally workdir/: files uploaded to the work folder
before its session, whose setup.sh runs there (and is not left behind). From task.toml, per step: min_reward (the
early stop), [steps.agent] and [steps.verifier] timeout_sec, [steps.verifier.env]. The whole attempt passes when
every step passed, which is Harbor's default "mean" strategy at its maximum; a task asking for another strategy is
imported with that reason. Harbor's per-step healthcheck and artifact collection are not run: neither changes a
verdict.
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import ValidationError

from task_defs.errors import TaskFileError
from task_defs.importers.dockerfile import text_of
from task_defs.importers.harbor import (
    LOGS,
    SOLUTION,
    TESTS,
    check_command,
    files_under,
    invalid,
    seconds,
    section,
    variables,
    verifier_of,
)
from task_defs.importers.models import CommandCheck, Files, Fixture, FixtureStep, Limits

SETUP = "setup.sh"  # Harbor's reserved name in a step's workdir/: run before the agent, never left for it


def _step_tables(cfg: dict, toml: Path, folder: Path) -> list[dict]:
    tables = cfg.get("steps")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise TaskFileError(toml, "steps", "a multi-step task lists its steps as [[steps]] tables, in order")
    for n, t in enumerate(tables, 1):
        name = t.get("name")
        if not isinstance(name, str) or not (folder / "steps" / name / "instruction.md").is_file():
            raise TaskFileError(toml, f"steps[{n}].name", "names a folder steps/<name>/ with instruction.md")
        if not (folder / "steps" / name / "tests" / "test.sh").is_file():
            raise TaskFileError(folder / "steps" / name / "tests" / "test.sh", None, "missing: each step's verifier")
    return tables


def _one(folder: Path, table: dict, n: int, toml: Path, task: str) -> tuple[FixtureStep, list[str], str | None, float]:
    """(the step, its verifier's pins, why it cannot run here, its agent timeout)."""
    name = table["name"]
    where = folder / "steps" / name
    prompt = text_of(where / "instruction.md")
    if prompt is None or not prompt.strip():
        raise TaskFileError(where / "instruction.md", None, "empty or not UTF-8 text")
    shared, why = files_under(folder / "tests", TESTS, folder, task)
    own, why_own = files_under(where / "tests", TESTS, folder, task)
    tests = {**shared, **own}
    requires, needs = verifier_of(tests)
    upload, why_up = files_under(where / "workdir", ".", folder, task)
    upload = {rel.removeprefix("./"): text for rel, text in upload.items()}
    setup = upload.pop(SETUP, None)
    solution, why_sol = files_under(where / "solution", SOLUTION, folder, task)
    solve = solution.pop(f"{SOLUTION}/solve.sh", None)
    if solution:
        needs = needs or f"steps/{name}/solution/ holds files besides solve.sh, which a step's reference cannot lay"
    agent, verifier = section(table, "agent", toml), section(table, "verifier", toml)
    timeout = agent.get("timeout_sec", 600)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise TaskFileError(toml, f"steps[{n}].agent.timeout_sec", "a positive number of seconds")
    min_reward = table.get("min_reward")
    try:
        step = FixtureStep(
            name=name, prompt=prompt, upload=Files(files=upload), setup=setup,
            verification=CommandCheck(type="command", command=check_command(
                variables(verifier, toml, f"steps[{n}].verifier.env")), files=tests, fresh_dirs=[TESTS, LOGS]),
            reference_script=solve, min_reward=min_reward,
            test_timeout_seconds=seconds(verifier, toml))
    except ValidationError as exc:
        raise invalid(exc, toml, f"steps[{n}]") from None
    return step, requires, why or why_own or why_up or why_sol or needs, float(timeout)


def steps_fixture(folder: Path, cfg: dict, toml: Path, common: dict, mounts: dict[str, str],
                  unavailable: str | None, resources: dict) -> Fixture:
    """The fixture of a multi-step task; `common` holds what every Harbor task has (id, title, workspace, ...),
    `resources` its [environment] limits (harbor.resources)."""
    strategy = cfg.get("multi_step_reward_strategy", "mean")
    if strategy != "mean":
        unavailable = unavailable or (f"task.toml multi_step_reward_strategy {str(strategy)[:40]!r}: kbench scores "
                                      "a multi-step task by all of its steps (Harbor's mean at its maximum)")
    steps, requires, timeouts = [], [], []
    for n, table in enumerate(_step_tables(cfg, toml, folder), 1):
        step, pins, why, step_timeout = _one(folder, table, n, toml, common["id"])
        steps.append(step)
        requires += [p for p in pins if p not in requires]
        timeouts.append(step_timeout)
        unavailable = unavailable or why
    try:
        return Fixture(**common, prompt=steps[0].prompt, verification=steps[-1].verification, steps=steps,
                       # the longest step's time is each session's
                       limits=Limits(timeout_seconds=math.ceil(max(timeouts)), **resources), mounts=mounts,
                       verifier_requires=requires, unavailable=unavailable or None)
    except ValidationError as exc:
        raise invalid(exc, toml, common["id"]) from None
