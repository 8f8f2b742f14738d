"""The one composition root of the kbench code location."""

import dagster as dg

from assets.suites import hidden_tests_are_proven, task_suites
from kbench_dagster.resources import SandboxSettings, SuiteSource

defs = dg.Definitions(
    assets=[task_suites],
    asset_checks=[hidden_tests_are_proven],
    resources={"suite_source": SuiteSource(), "sandbox": SandboxSettings()},
)
