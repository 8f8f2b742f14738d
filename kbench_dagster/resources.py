"""Resources: small classes the assets get their settings and outside systems from."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from sandbox.isolation import IsolationConfig
from sandbox.workdirs import default_work_root
from task_defs import Suite, load_suite


class SuiteSource(dg.ConfigurableResource):
    """Where the task suites come from: names of the built-in suites, or folders."""

    suites: list[str] = ["kbench"]

    def load(self) -> list[Suite]:
        return [load_suite(s) for s in self.suites]


class SandboxSettings(dg.ConfigurableResource):
    """How sessions are isolated and where their work folders live (always outside the repository)."""

    isolation: str = "auto"
    work_root: str = ""
    validate_workers: int = 2

    def isolation_config(self) -> IsolationConfig:
        return IsolationConfig(mode=self.isolation)  # type: ignore[arg-type]

    def work_path(self) -> Path:
        return Path(self.work_root) if self.work_root else default_work_root()
