"""Thinking parity on the board: the "no-think" mark of a model that reasons only when a reasoning effort is asked.

Every result row records the effort its requests asked (reasoning_effort: "default" when none was sent) and whether
any of its replies showed reasoning (reasoned: None when no reply was read). A model's rows at the default effort
that never reasoned, beside rows at an asked effort that did, mean its default numbers were made without thinking:
comparing them with a model that thinks by default is not like with like, so its pages say so.
"""

from __future__ import annotations

from kbench_dagster.reporting.board_html import esc
from kbench_dagster.store import ResultsStore
from kbench_dagster.store_schema import kind_tables

ASKING = ("low", "medium", "high")  # the efforts that ask for reasoning ("none" asks for none)
NO_THINK_NOTE = (
    "no-think marks a model that thinks only when asked: none of its rows at the default reasoning effort (none "
    "sent, the server's own) shows reasoning in any reply, while some of its rows where a reasoning effort of low, "
    "medium or high was asked do. A reply shows reasoning when the server sent reasoning_content, counted reasoning "
    "tokens, or left a think block in its text; rows where no reply was read count neither way. Such a model's "
    "default-effort numbers were made without thinking.")


def _rows_sql() -> str:
    """The model, effort and reasoning of every row that records them: the agent tasks' and each kind's."""
    tables = ["attempts", *(t for t, cols in kind_tables().items() if {"reasoning_effort", "reasoned"} <= set(cols))]
    return " UNION ALL ".join(f"SELECT model, COALESCE(reasoning_effort, 'default') AS effort, reasoned FROM {t}"
                              for t in tables)


def no_think_models(store: ResultsStore) -> set[str]:
    """The models to mark: some default-effort rows with a known answer, none of them reasoned, and at least one row
    at an asked effort that did."""
    asking = ", ".join(f"'{e}'" for e in ASKING)
    _, rows = store.query(f"""
        SELECT model FROM ({_rows_sql()}) WHERE reasoned IS NOT NULL GROUP BY model
        HAVING count(*) FILTER (WHERE effort = 'default') > 0
           AND NOT bool_or(reasoned) FILTER (WHERE effort = 'default')
           AND bool_or(reasoned) FILTER (WHERE effort IN ({asking}))""")
    return {model for (model,) in rows}


def no_think_chip(model: str, marked: set[str]) -> str:
    """The mark beside a model's name (empty for a model not marked); its title says the rule."""
    return f' <span class="chip" title="{esc(NO_THINK_NOTE)}">no-think</span>' if model in marked else ""
