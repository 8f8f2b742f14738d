"""The results database as one asset: its views refreshed once gradings have landed."""


import dagster as dg

from assets.runs import gradings
from kbench_dagster.resources import ResultsDB
from kbench_dagster.views import PASS_AT_1

# After gradings land, but never while any gradings partition is still running, so a 100-partition backfill ends
# in one refresh. Not `eager()`: it waits until no dependency partition is missing, and most model x cell
# partitions are never run.
AFTER_GRADINGS = (
    (dg.AutomationCondition.newly_missing() | dg.AutomationCondition.any_deps_updated()).since_last_handled()
    & ~dg.AutomationCondition.any_deps_in_progress()
    & ~dg.AutomationCondition.in_progress()
).with_label("after gradings land")


@dg.asset(deps=[gradings], group_name="results", automation_condition=AFTER_GRADINGS)
def results(results_db: ResultsDB) -> dg.MaterializeResult:
    """DuckDB tables (runs, attempts, gradings, events_summary, manifests, models) and the `scored` view."""
    store = results_db.store()
    with store.connect() as con:  # opening it creates the tables and the `scored` view if missing
        counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("runs", "attempts", "gradings", "events_summary", "manifests", "models")}
        cols = [d[0] for d in con.execute(PASS_AT_1).description]
        rows = con.execute(PASS_AT_1).fetchall()
    table = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    table += ["| " + " | ".join(str(v) for v in r) + " |" for r in rows[:50]]
    return dg.MaterializeResult(metadata={**{f"{t}_rows": n for t, n in counts.items()},
                                          "database": dg.MetadataValue.path(str(store.path)),
                                          "pass@1": dg.MetadataValue.md("\n".join(table))})
