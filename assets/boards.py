"""Aggregates (statistics with honest intervals) and the published board, refreshed after results."""

from pathlib import Path

import dagster as dg

from assets.results import results
from kbench_dagster.reporting import board_data
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.resources import AgentSettings, ResultsDB


@dg.asset(deps=[results], group_name="results", automation_condition=dg.AutomationCondition.eager())
def aggregates(results_db: ResultsDB) -> dg.Output:
    """Per model x harness x condition x server: pass rates with intervals, tiers and paired comparisons."""
    agg = board_data.aggregates(results_db.store())
    return dg.Output(agg, metadata={"groups": len(agg["groups"]), "comparisons": len(agg["comparisons"])})


@dg.asset(group_name="results", automation_condition=dg.AutomationCondition.eager())
def boards(aggregates: dict, results_db: ResultsDB, agent: AgentSettings) -> dg.MaterializeResult:
    """The static board site: leaderboard, model, compare, task and trajectory pages (from the records under the
    runs root the runs were written to, and nowhere else)."""
    out = Path(results_db.board_dir)
    index = build_board(results_db.store(), out, agg=aggregates, runs_root=Path(agent.runs_root))
    pages = sum(1 for _ in out.rglob("*.html"))
    return dg.MaterializeResult(metadata={"index": dg.MetadataValue.path(str(index)), "pages": pages})
