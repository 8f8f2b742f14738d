"""The one composition root of the kbench code location."""

import os

import dagster as dg

from assets.boards import aggregates, boards
from assets.capability import capability_contract_holds, capability_results, capability_scores, capability_suite
from assets.kernels import kernel_gradings, kernel_runs, kernel_tasks
from assets.language import breakdown_answers, textjob_replies
from assets.results import results
from assets.runs import agent_runs, gradings
from assets.suites import hidden_tests_are_proven, task_suites
from assets.trials import trial_results, trial_stats, trial_suite, trials_pass_the_gate
from kbench_dagster.cells import kind_cell_asset
from kbench_dagster.resources import AgentSettings, ResultsDB, SandboxSettings, SuiteSource, endpoints_from_env
from kbench_dagster.sensors import BENCHMARK_JOB, new_model_release_sensor
from sandbox.engine.registry import external_cards

benchmark_job = dg.define_asset_job(BENCHMARK_JOB, selection=[agent_runs, gradings])

RESOURCES = {
    "suite_source": SuiteSource(),
    "sandbox": SandboxSettings(isolation=os.environ.get("KBENCH_ISOLATION", "auto")),
    "agent": AgentSettings(agent=os.environ.get("KBENCH_AGENT", "pi"), tasks=os.environ.get("KBENCH_TASKS", ""),
                           runs_root=os.environ.get("KBENCH_RUNS", "runs")),
    "results_db": ResultsDB(),
    "endpoints": endpoints_from_env(),
}

defs = dg.Definitions(
    assets=[task_suites, agent_runs, gradings, results, aggregates, boards, kernel_tasks, kernel_runs,
            kernel_gradings, textjob_replies, breakdown_answers, trial_suite, trial_results, trial_stats,
            capability_suite, capability_results, capability_scores,
            *(kind_cell_asset(card) for card in external_cards())],  # kinds kept elsewhere (KBENCH_KINDS)
    asset_checks=[hidden_tests_are_proven, trials_pass_the_gate, capability_contract_holds],
    jobs=[benchmark_job],
    sensors=[new_model_release_sensor, dg.AutomationConditionSensorDefinition(
        "results_automation",
        target=dg.AssetSelection.assets(results, aggregates, boards, trial_stats, capability_scores),
        default_status=dg.DefaultSensorStatus.RUNNING)],
    resources=RESOURCES,
)
