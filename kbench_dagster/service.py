"""The one service behind `kbench run`, `kbench demo`, `kbench regrade` and the Dagster assets.

Settings (typed, checked at the edge) -> one RunSpec factory -> the Scheduler -> the store (every table and the
manifest) -> regrading. The CLI and the assets are thin callers of these functions, so a cell run either way
leaves the same rows. Never imports dagster.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from kbench_dagster.ingest import cell_of, cells_of, ingest_run, store_cell, write_key
from kbench_dagster.run_settings import RunSettings
from kbench_dagster.store import ResultsStore
from kbench_dagster.store_schema import all_tables
from sandbox.engine.attempt_folders import check_run_id
from sandbox.engine.attempt_reader import done_keys
from sandbox.engine.conditions import select_conditions
from sandbox.engine.kinds import AgentTasks, WorkKind, as_kind
from sandbox.engine.registry import card, is_registered, kind_of
from sandbox.engine.regrade import RegradeSummary, regrade_run
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.slots import ServerSlots
from sandbox.engine.spec import API_AGENT, RunSpec, plan, server_slots_of
from sandbox.engine.stops import ServerDown
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, GB
from sandbox.isolation.workdirs import default_work_root
from sandbox.servers.probe import wait_for_server
from task_defs import Suite
from task_defs.loader import select


def verdict_table(kind_name: str) -> str:
    """The table that holds a kind's verdicts (what a regrade rewrites)."""
    return card(kind_name).table


def select_units(kind: WorkKind, wanted: str | None) -> list:
    if isinstance(kind, AgentTasks):
        return select(kind.suite, wanted)
    ids = [w.strip() for w in (wanted or "").split(",") if w.strip()]
    for i in ids:
        try:
            kind.get(i)
        except KeyError as exc:  # its message names the known ids; the CLI shows ValueErrors as plain errors
            raise ValueError(f"--tasks: {exc.args[0]}") from None
    wanted_ids = set(ids)  # a strike names its 1,500 trials here
    return [u for u in kind.units if not ids or u.id in wanted_ids]


def build_spec(settings: RunSettings, work: Suite | WorkKind | None = None,
               api_key: str | None = None) -> tuple[RunSpec, WorkKind]:
    """The one RunSpec factory: the kind of work, units, conditions, limits and isolation a run's settings name."""
    kind = as_kind(work) if work is not None else kind_of(settings.suite)
    spec = RunSpec(
        run_id=settings.run_id, model=settings.model, url=settings.url,
        agent=settings.agent or ("pi" if kind.runs_agent else API_AGENT),
        tool_format=settings.tool_format, tasks=select_units(kind, settings.tasks),
        defer_grading=settings.defer_grading,
        conds=select_conditions(settings.conds, settings.thinking, settings.max_tokens, settings.extension,
                                settings.temperature, settings.top_p, settings.sampling_seed,
                                settings.reasoning_effort),
        endpoint={"name": settings.endpoint, "hardware": settings.hardware, "hardware_class": settings.hardware_class,
                  "site": settings.site},
        seeds=len(settings.seeds), seed_list=list(settings.seeds), workers=settings.workers,
        timeout_s=settings.timeout_s, runs_root=Path(settings.runs_root),
        work_root=Path(settings.work_root) if settings.work_root else None, pi_path=settings.pi_path,
        keep_work=settings.keep_work, api_key=api_key, isolation=IsolationConfig(mode=settings.isolation),
        server_slots=settings.server_slots, server_down_stop_s=settings.server_down_stop_s,
        latency_budget_s=settings.latency_budget_s,
        limits=AGENT_LIMITS.with_(rss_limit_bytes=int(settings.rss_limit_gb * GB), max_procs=settings.max_procs,
                                  disk_bytes=int(settings.disk_limit_gb * GB)))
    return spec, kind


def cli_api_key() -> str | None:
    """The CLI's key comes from the environment only: never an argument (shell history, ps)."""
    return os.environ.get("KBENCH_API_KEY")


def already_done(spec: RunSpec) -> int:
    done = done_keys(Path(spec.runs_root) / spec.run_id)
    return sum(1 for a in plan(spec) if a.key in done) if done else 0


@dataclass
class PlannedRun:
    """A run a command is about to start, as its header tells it."""

    spec: RunSpec  # with the server's slots, asked once, as the run and its manifest will use them
    kind: WorkKind
    slots: ServerSlots | None
    planned: int
    done_before: int  # attempts an earlier run of the same command finished

    @property
    def left(self) -> int:
        return self.planned - self.done_before


def plan_run(settings: RunSettings, work: Suite | WorkKind | None = None, api_key: str | None = None) -> PlannedRun:
    spec, kind = build_spec(settings, work, api_key)
    slots = server_slots_of(spec, kind)
    spec = replace(spec, server_slots=slots.slots if slots else 0)
    return PlannedRun(spec, kind, slots, len(plan(spec)), already_done(spec))


@dataclass
class RunOutcome:
    spec: RunSpec
    summary: dict
    stored: dict[str, int] = field(default_factory=dict)


def await_server(spec: RunSpec, left: int, say: Callable[[str], None] | None = None) -> None:
    """Before a run with work to do (`left` attempts): wait for its server, saying at once (and then every 10 s, with
    how long it has lasted) when it does not answer; ServerDown after spec.server_down_stop_s with what the probe
    saw."""
    if left <= 0:
        return
    seen = {}

    def waiting(seconds: float, problem: str) -> None:
        seen["problem"] = problem
        if say:
            say(f"waiting for the server at {spec.url}: {problem}; start it or fix --url"
                + (f" (waited {seconds:.0f} s of {spec.server_down_stop_s:.0f} s)" if seconds >= 1 else ""))

    if not wait_for_server(spec.url, spec.api_key, timeout_s=spec.server_down_stop_s, on_wait=waiting):
        raise ServerDown(f"the server at {spec.url} did not answer for {spec.server_down_stop_s:.0f} s "
                         f"({seen.get('problem', 'no answer')}): start it or fix --url, then run the same command "
                         "again; nothing was started")


def run_and_store(run: PlannedRun, store: ResultsStore, on_result: Callable[[dict], None] | None = None,
                  store_as: Callable[[RunSpec, ResultsStore], dict[str, int]] | None = None,
                  say: Callable[[str], None] | None = None) -> RunOutcome:
    """Wait for the server (saying so through `say`) unless no attempt is left, run every attempt without a
    result, then store the run. What finished is stored even when the run stops with an error (the error is raised
    afterwards), so SQL and the board agree with the records; the same call later does the rest."""
    via = run.spec.effort_via()
    if say and via and run.left:
        say(f"reasoning effort {run.spec.conds[0].reasoning_effort}: {via}")
    await_server(run.spec, run.left, say)
    runner = Scheduler(run.spec, run.kind, on_result=on_result, slots=run.slots)
    keep = store_as or (lambda s, st: ingest_run(st, s.runs_root, s.run_id))
    try:
        summary = runner.run()
    except Exception as err:
        try:
            keep(runner.spec, store)
        except Exception as exc:  # noqa: BLE001 - the run's own error is the one to raise
            err.add_note(f"the finished results could not be stored in {store.path} ({exc})")
        raise
    return RunOutcome(runner.spec, summary, keep(runner.spec, store))


# ---------------------------------------------------------------------------------------------- cells

def kind_suffix(kind_name: str) -> str:
    """What sets a kind's run ids and store keys apart from the agent tasks' ("" for an agent-task suite)."""
    return f"-{kind_name}" if card(kind_name).run_suffix else ""


def cell_run_id(agent: str, model_key: str, cell: str, kind: WorkKind) -> str:
    """A Dagster cell's run id: one cell, one suite version. A new cell never meets an old run's manifest, and a
    cell run again after the hidden tests changed starts afresh instead of mixing two versions."""
    return check_run_id(f"dg-{agent}-{model_key}{kind_suffix(kind.name)}-{cell}-{kind.fingerprint[:8]}")


def partition_store_key(agent: str, model_key: str, cell: str, kind_name: str = "") -> str:
    """Where a Dagster cell's rows live in the store: whichever run last filled the partition replaces them."""
    return f"dg-{agent}-{model_key}{kind_suffix(kind_name)}/{cell}"


def store_run_cell(spec: RunSpec, store: ResultsStore, key: str) -> dict[str, int]:
    """A one-cell run into the store under `key` (every table and the manifest)."""
    cond, seed = spec.conds[0].name, plan(spec)[0].seed
    return store_cell(store, Path(spec.runs_root) / spec.run_id, cond, seed, key)


@dataclass
class RegradeOutcome:
    run_id: str
    summary: RegradeSummary
    stored: dict[str, int]


def kind_of_run(runs_root: Path, run_id: str, suite: str) -> WorkKind:
    """The kind a stored run was made of: the registered kind its manifest names, else the given agent-task
    suite."""
    path = Path(runs_root) / check_run_id(run_id) / "manifest.json"
    if not path.exists():
        raise ValueError(f"no run {run_id!r} in {runs_root} (see `ls {runs_root}`)")
    name = json.loads(path.read_text())["suite"]["name"]
    return kind_of(name if is_registered(name) else suite)


def regrade_and_store(runs_root: Path, run_id: str, kind: WorkKind, store: ResultsStore, cfg: IsolationConfig,
                      work_root: Path | None = None, key_of: Callable[[str, int], str] | None = None,
                      cell: tuple[str, int] | None = None, on_regraded=None) -> RegradeOutcome:
    """Grade a run's stale attempts with today's hidden tests and write its gradings rows (each cell replaced).
    `key_of(condition, seed)` names the store partition of a cell (default: the one that holds the cell's
    attempts, else the CLI's run/cell key), so a regraded verdict always sits beside its attempt."""
    run_dir = Path(runs_root) / check_run_id(run_id)
    if not (run_dir / "manifest.json").exists():
        raise ValueError(f"no run {run_id!r} in {runs_root} (see `ls {runs_root}`)")
    summary = RegradeSummary()
    stored: Counter = Counter()
    for condition, seed in [cell] if cell else cells_of(run_dir):
        part = regrade_run(run_dir, kind, work_root or default_work_root(), cfg, condition, seed, on_regraded)
        summary.regraded += part.regraded
        summary.current += part.current
        summary.unscored += part.unscored
        summary.gone += part.gone
        summary.unrepaired += part.unrepaired
        summary.stepwise += part.stepwise
        held = store.partition_of(run_id, condition, seed)
        key = key_of(condition, seed) if key_of else held or write_key(run_id, cell_of(condition, seed))
        # a cell the store never had (a run stored elsewhere) comes in whole: a grading needs its attempt
        tables = (verdict_table(kind.name),) if held else all_tables()
        stored.update(store_cell(store, run_dir, condition, seed, key, tables=tables))
    return RegradeOutcome(run_id, summary, dict(stored))
