"""The deployment's DAGSTER_HOME: dagster.yaml from the template beside this file, and the pool limits.

Run containers see the host's folders at the host's paths: a run worker starts its sandboxes as sibling containers
through the same engine, and the engine binds host paths, so a work folder, a harness copy or a proxy socket the
worker makes must be found by the engine where the worker made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kbench_dagster.ui import set_pool_limits

TEMPLATE = Path(__file__).with_name("dagster.yaml")
LABEL = "kbench.deploy"  # on every run container; its value is the deployment's folder


@dataclass
class RunContainers:
    image: str
    label: str
    mounts: dict[str, str] = field(default_factory=dict)  # host path -> "rw" | "ro", bound at the same path
    env: list[str] = field(default_factory=list)  # NAME (the daemon's own value) or NAME=VALUE


def render(pg_port: int, runs: RunContainers, slots: int) -> str:
    config = yaml.safe_load(TEMPLATE.read_text())
    config["storage"]["postgres"]["postgres_db"]["port"] = pg_port
    launcher = config["run_launcher"]["config"]
    launcher["image"] = runs.image
    launcher["env_vars"] = sorted(runs.env)
    kwargs = launcher["container_kwargs"]
    kwargs["volumes"] = {src: {"bind": src, "mode": mode} for src, mode in sorted(runs.mounts.items())}
    kwargs["labels"] = {LABEL: runs.label}
    config["concurrency"]["pools"]["default_limit"] = slots
    return (f"# Written by `kbench deploy start` from {TEMPLATE.relative_to(TEMPLATE.parents[2])}, where each "
            "setting is explained.\n" + yaml.safe_dump(config, sort_keys=False))


def write_home(home: Path, pg_port: int, runs: RunContainers, slots: int, gpus: int = 1) -> Path:
    """Write dagster.yaml, then the pools' limits, which live in PostgreSQL: the instance opens only with the
    database password in this process's environment."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(render(pg_port, runs, slots))
    set_pool_limits(home, slots, gpus)
    return home
