"""The images of imported tasks whose environment is their own Dockerfile's (sandbox/containers/task_images.py):
what state each is in, and `kbench import-tasks --build`, which builds them ahead with a progress bar."""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kbench_dagster.progress import Progress
from kbench_dagster.terminal import visible
from sandbox.containers import engine, task_images
from task_defs.importers.harbor import image_recipe
from task_defs.importers.models import Fixture

BUILT, NOT_BUILT, FAILED = "built", "needs its image built (kbench import-tasks --build)", "its image's build failed"
DEFAULT_BUILD_TIMEOUT_S = 600


@dataclass
class EnvState:
    task: str
    state: str  # BUILT, NOT_BUILT or FAILED
    detail: str = ""  # the failing step and the last lines of its output


def _build_timeout(toml: Path) -> float:
    try:
        value = tomllib.loads(toml.read_text(encoding="utf-8")).get("environment", {}).get("build_timeout_sec")
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        return DEFAULT_BUILD_TIMEOUT_S
    return float(value) if isinstance(value, (int, float)) and value > 0 else DEFAULT_BUILD_TIMEOUT_S


def _client(start: bool):
    """The engine's client; with `start`, ours is started where none answers (root and Debian's docker.io)."""
    try:
        return engine.client(timeout=600)
    except engine.EngineUnavailable:
        if not start:
            return None
        engine.start()
        return engine.client(timeout=600)


def _failed(name: str) -> EnvState | None:
    f = task_images.failure(name)
    return EnvState("", FAILED, f"at {f['step']}:\n{f['tail']}") if f else None


def states(fixtures: list[tuple[Fixture, Path]], build: bool) -> dict[str, EnvState]:
    """Each image task's state; with `build`, those not built are built first (a failure is kept and shown)."""
    tasks = [(fx, toml) for fx, toml in fixtures if fx.image and not fx.unavailable]
    if not tasks:
        return {}
    client = _client(start=build)
    out: dict[str, EnvState] = {}
    bar = Progress(len(tasks), "build") if build else None
    for fx, toml in tasks:
        name = fx.image
        if client is None:
            state = _failed(name) or EnvState("", NOT_BUILT)
        elif task_images.present(client, name):
            state = EnvState("", BUILT)
        elif not build:
            state = _failed(name) or EnvState("", NOT_BUILT)
        else:
            task_images.forget_failure(name)
            try:
                task_images.build(image_recipe(toml.parent, fx.id), client, timeout_s=_build_timeout(toml),
                                  log=lambda m: print(f"import-tasks: {m}", file=sys.stderr))
                state = EnvState("", BUILT)
            except task_images.BuildFailed as exc:
                state = EnvState("", FAILED, f"at {exc.step}:\n{exc.tail}")
        state.task = fx.task_id
        out[fx.task_id] = state
        if bar:
            bar.step(state.state == BUILT)
    return out


def show_failures(envs: dict[str, EnvState], lines: int = 6) -> None:
    """Each failed build: the task, the step, the last lines of its output (agent-free, but escaped all the same)."""
    for env in envs.values():
        if env.state == FAILED:
            head, _, tail = env.detail.partition("\n")
            print(f"build failed: {env.task} {visible(head)}", file=sys.stderr)
            for line in tail.strip().splitlines()[-lines:]:
                print(f"    {visible(line)}", file=sys.stderr)
