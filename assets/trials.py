"""The tool-use trials in the pipeline: the suite (checked by the gate and the probe before any strike), the
strikes (one partition per model@endpoint x cell, as `kbench trials run` makes them) and their statistics.
Thin calls of what the CLI uses."""

from pathlib import Path

import dagster as dg

from kbench_dagster.cells import cell_asset
from kbench_dagster.commands.trials_report import StaleEvidence, strike_rows
from kbench_dagster.reporting.trial_stats import strike_stats
from kbench_dagster.resources import AgentSettings, ResultsDB
from sandbox.chatwork.trial_checks import gate_problems, probe
from sandbox.chatwork.trials import CACHE_DIR, ToolTrials, select_trials
from sandbox.engine.reply_cache import ReplyCache
from task_defs.trials.grading import work_grade
from task_defs.trials.loader import rules_fingerprint


@dg.asset(group_name="suites")
def trial_suite() -> dg.MaterializeResult:
    """The tool-use trials: every family's tools, trials and oracles, fingerprinted with the oracle rules."""
    kind = ToolTrials()
    lines = ["| family | trials | generated | easy | medium | hard | oracles |", "|---|---|---|---|---|---|---|"]
    for fam in kind.families:
        grades = [work_grade(t) for t in fam.trials]
        oracles = sorted({t.oracle.kind for t in fam.trials})
        lines.append(f"| {fam.id} | {len(fam.trials)} | {sum(t.source == 'generated' for t in fam.trials)} | "
                     f"{grades.count('easy')} | {grades.count('medium')} | {grades.count('hard')} | "
                     f"{', '.join(oracles)} |")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(kind.fingerprint),
        metadata={"trials": len(kind.units), "families": len(kind.families), "suite_fingerprint": kind.fingerprint,
                  "rules_fingerprint": rules_fingerprint(), "preview": dg.MetadataValue.md("\n".join(lines))})


@dg.asset_check(asset=trial_suite, blocking=True)
def trials_pass_the_gate() -> dg.AssetCheckResult:
    """Every reference passes, no-knowledge answers (empty, {}, echoed or forged shell products) score exactly 0,
    declared shortcuts fail, no prompt repeats; the chance floor is reported."""
    kind = ToolTrials()
    problems = gate_problems(kind)
    found = probe(kind)
    broken = [f"{name} scores {100 * v['share']:.2f}%" for name, v in found.items()
              if v["kind"] == "structural" and v["score"] > 0]
    floor = max(v["share"] for v in found.values() if v["kind"] == "chance")
    return dg.AssetCheckResult(
        passed=not problems and not broken, severity=dg.AssetCheckSeverity.ERROR,
        metadata={"problems": len(problems) + len(broken), "chance_floor": round(floor, 4),
                  "details": dg.MetadataValue.md("\n".join(f"- {p}" for p in problems + broken) or "none")})


class TrialSettings(dg.Config):
    only: str = ""  # tool-use trial families, comma-separated; empty: every family
    limit: int = 0  # the first K trials of each family; 0: all
    response_format: str = "auto"  # the answer channel: auto | json_schema | json_object | text
    cache: bool = True  # answer a request asked before from the reply cache under the runs root


def _trials(settings: TrialSettings, agent: AgentSettings, endpoint) -> tuple:
    cache = ReplyCache(Path(agent.runs_root) / CACHE_DIR) if settings.cache else None
    kind = ToolTrials(response_format=settings.response_format, cache=cache)
    units = select_trials(kind, settings.only or None, settings.limit or None)
    return kind, units, {"response_format": kind.negotiation.mode}


trial_results = cell_asset(
    "trial_results", "trial_results", "family", _trials, deps=(trial_suite,), settings=TrialSettings,
    description="Every tool-use trial asked of one model@endpoint in one cell, each answer graded by its oracle, "
                "a row each.")


@dg.asset(deps=[trial_results], group_name="results", automation_condition=dg.AutomationCondition.eager())
def trial_stats(results_db: ResultsDB) -> dg.Output:
    """Per strike: pass@1 with per-trial and clustered intervals, pass@k, grade-weighted, per family and grade."""
    store = results_db.store()
    out, stale = {}, []
    for run_id in store.values_of("trial_results", "run_id"):
        try:
            out[run_id] = strike_stats(strike_rows(store, run_id))
        except StaleEvidence:
            stale.append(run_id)  # graded under other rules: shown as such, never re-read
    lines = ["| strike | trials | pass@1 | 95% (trials) | 95% (shapes) | weighted |", "|---|---|---|---|---|---|"]
    for run_id, doc in out.items():
        o = doc["overall"]
        if o["pass_at_1"] is None:  # nothing scored (every attempt infra): no rate to show
            lines.append(f"| {run_id} | 0 | – | – | – | – |")
            continue
        lines.append(f"| {run_id} | {o['trials']} | {o['pass_at_1']:.3f} | {o['pass_at_1_ci'][0]:.3f}-"
                     f"{o['pass_at_1_ci'][1]:.3f} | {o['clustered_ci'][0]:.3f}-{o['clustered_ci'][1]:.3f} | "
                     f"{o['weighted']:.3f} |")
    return dg.Output({"strikes": out, "stale": stale}, metadata={
        "strikes": len(out), "stale": len(stale), "table": dg.MetadataValue.md("\n".join(lines))})
