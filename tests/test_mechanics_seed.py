"""The mechanics of each condition, as kbench's own README describes them, in `kbench report`'s table and in each
condition's `mechanics` of `kbench collect`: every figure computed by hand from rows the tests build."""

import json
from pathlib import Path

import pytest
from bundled import SUITE

from kbench_dagster.reporting import export, loaders, tables
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select

COUNTS = ("duration_s", "turns", "input_tokens", "output_tokens", "cutoffs", "tool_calls", "native_calls",
          "text_calls", "tool_errors", "tool_format_errors", "watchdog_kills", "test_kills", "outside_writes")


def row(task: str, outcome: str, seed: int = 1, false_claim: bool = False, **counts) -> dict:
    return {"run_id": "hand", "model": "m", "agent": "builtin", "condition": "base", "task": task, "seed": seed,
            "category": "programming", "tier": "easy", "outcome": outcome, "infra": False,
            "false_claim": false_claim, **{k: 0 for k in COUNTS}, **counts}


# Chosen so that each figure's likely mistakes give another number: four calls of which three are native and none
# text (the fourth came in the constrained form, so native + text is not the calls); kills in the agent's session
# and in the hidden test differ; one attempt wrote two paths outside (one run, not two); the skipped attempt ran
# no session, so a mean over all three attempts would read 10.0 s and 2.67 turns.
ROWS = [
    row("fizz", "pass", duration_s=10.0, turns=3, input_tokens=1000, output_tokens=100, cutoffs=1, tool_calls=4,
        native_calls=3, tool_errors=1),
    row("clamp", "wrong", false_claim=True, duration_s=20.0, turns=5, input_tokens=2000, output_tokens=200,
        tool_calls=2, text_calls=2, tool_format_errors=2, watchdog_kills=1, test_kills=3, outside_writes=2),
    row("gpuname", "skipped"),
]
BY_HAND = {"mean_time_s": 15.0, "turns": 8, "mean_turns": 4.0, "output_tokens": 300, "input_tokens": 3000,
           "cutoffs": 1, "tool_calls": 6, "native_calls": 3, "text_calls": 2, "tool_errors": 1,
           "tool_format_errors": 2, "watchdog_kills": 1, "test_kills": 3, "outside_write_runs": 1, "false_claims": 1}
# the report's column for each figure it shows
COLUMNS = {"mean s": "mean_time_s", "turns": "turns", "out tok": "output_tokens", "calls": "tool_calls",
           "native": "native_calls", "text": "text_calls", "cut-off": "cutoffs", "tool err": "tool_errors",
           "fmt err": "tool_format_errors", "false claims": "false_claims", "agent kills": "watchdog_kills",
           "test kills": "test_kills", "outside": "outside_write_runs"}


@pytest.mark.parametrize("figure", sorted(BY_HAND))
def test_each_mechanics_figure_is_the_hand_count(figure):
    assert loaders.mechanics(ROWS)[figure] == BY_HAND[figure]


def test_mechanics_has_no_figure_left_untested():
    assert set(loaders.mechanics(ROWS)) == set(BY_HAND)


def test_a_condition_of_skipped_attempts_only_has_zero_means():
    m = loaders.mechanics([row("gpuname", "skipped"), row("fizz", "skipped", seed=2)])
    assert (m["mean_time_s"], m["mean_turns"]) == (0.0, 0.0)


def mechanics_table(text: str) -> dict[str, dict[str, str]]:
    """The report's mechanics table as condition -> column -> cell. Its columns are right-aligned under their
    headers, so a cell ends where its header ends (headers hold spaces, so splitting on spaces cannot read it)."""
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("condition") and "mean s" in ln)
    header, out = lines[at], {}
    ends = sorted((header.index(name) + len(name), name) for name in COLUMNS)
    for ln in lines[at + 1:]:
        if not ln.strip():
            break
        cells, start = {}, 10
        for end, name in ends:
            cells[name] = ln[start:end].strip()
            start = end
        out[ln[:10].strip()] = cells
    return out


@pytest.mark.parametrize("column", sorted(COLUMNS))
def test_each_column_of_the_report_mechanics_table_is_the_hand_count(column):
    cells = mechanics_table(tables.render("hand", ROWS))["base"]
    want = BY_HAND[COLUMNS[column]]
    assert cells[column] == (f"{want:.1f}" if isinstance(want, float) else str(want))


def test_the_report_shows_every_figure_of_the_seed_table():
    """mean time, turns, output tokens, cut-off replies, tool errors, watchdog kills (the agent's and the hidden
    test's), the runs that wrote outside the work folder; and the tool calls with their native and text forms."""
    assert set(mechanics_table(tables.render("hand", ROWS))["base"]) == set(COLUMNS)


@pytest.fixture(scope="module")
def hand_run(tmp_path_factory) -> Path:
    """A real run of two attempts (builtin agent, scripted oracle) whose result.json counts are then set by hand:
    collect reads the records as they are, whatever made them."""
    root = tmp_path_factory.mktemp("mechanics")
    with ScriptedServer(persona="oracle", port=0) as srv:
        spec = RunSpec(run_id="hand", model="scripted-oracle", conds=select_conditions("base"),
                       tasks=select(SUITE, "fizz,clamp"), url=srv.url, agent="builtin", runs_root=root / "runs",
                       work_root=root / "work", workers=2, timeout_s=60, seeds=1, server_wait_s=5, server_slots=0)
        Scheduler(spec, SUITE).run()
    by_task = {r["task"]: r for r in ROWS}
    for path in (root / "runs" / "hand").glob("base/*/s1/result.json"):
        result = json.loads(path.read_text())
        mine = by_task[result["task"]]
        result.update({k: mine[k] for k in COUNTS}, false_claim=mine["false_claim"])
        path.write_text(json.dumps(result))
    return root / "runs"


@pytest.mark.parametrize("figure", sorted(BY_HAND))
def test_each_collect_mechanics_figure_is_the_hand_count(hand_run, figure):
    doc = export.collect(hand_run, ["hand"])
    export.validate_results(doc)
    [cond] = doc["runs"][0]["conditions"]
    assert cond["mechanics"][figure] == BY_HAND[figure]  # the skipped row is not in this run; it held only zeros


def test_the_schema_checks_the_new_figures_and_still_takes_collect_files_without_them(hand_run):
    doc = export.collect(hand_run, ["hand"])
    for figure in ("tool_calls", "native_calls", "text_calls", "test_kills"):
        older = json.loads(json.dumps(doc))
        del older["runs"][0]["conditions"][0]["mechanics"][figure]
        export.validate_results(older)  # a file collected before the figure existed still imports
        broken = json.loads(json.dumps(doc))
        broken["runs"][0]["conditions"][0]["mechanics"][figure] = -1
        with pytest.raises(ValueError, match=f"mechanics/{figure}"):
            export.validate_results(broken)


def test_the_board_takes_the_same_means_as_the_report(tmp_path):
    """The board's mean time and turns per attempt that ran, as the report's: the skipped attempt is left out."""
    from kbench_dagster.reporting.board_data import aggregates
    from kbench_dagster.store import ResultsStore

    store = ResultsStore(tmp_path / "m.duckdb")
    attempts = [{k: v for k, v in r.items() if k not in ("false_claim", "outside_writes")} | {"test_duration_s": 1.0}
                for r in ROWS]
    store.replace_partitions({"hand": {"attempts": attempts}})
    [group] = aggregates(store, n_boot=50)["groups"]
    assert group["mech"]["mean_time_s"] == pytest.approx(BY_HAND["mean_time_s"])
    assert group["mech"]["mean_turns"] == pytest.approx(BY_HAND["mean_turns"])
