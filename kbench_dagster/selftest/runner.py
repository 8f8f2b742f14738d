"""Runs the hostile fault suite: one real `kbench run` per attack family and agent, then the host check.

Each row is a run of its own (RUNID selftest-STAMP-FAMILY-AGENT) with the normal Scheduler, the scripted server
playing the family's replay scripts, and the ordinary task solved with its reference last. The API key is a
random marker, set in the harness's environment too, so that the host check can look for it in every record.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import psutil

from kbench_dagster import service
from kbench_dagster.run_settings import settings_of
from kbench_dagster.selftest import host
from kbench_dagster.selftest.family import (
    ORDINARY_TASK,
    Context,
    Family,
    JudgeContext,
    JudgeFamily,
    RunView,
    Verdict,
    reference_calls,
    say,
)
from kbench_dagster.selftest.persona import TaskScripts
from sandbox.engine.scheduler import Scheduler
from sandbox.isolation.bwrap import bwrap_path
from sandbox.isolation.limits import AGENT_LIMITS, MB, Limits
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.models import Suite

AGENTS = ("pi", "builtin")
# Smaller than a benchmark run's memory and disk budgets (2 GB each), so that going over them costs seconds; the
# watchdogs are the same code whatever the numbers.
SELFTEST_LIMITS = AGENT_LIMITS.with_(rss_limit_bytes=768 * MB, disk_bytes=384 * MB)
SAMPLE_S = 0.05


@dataclass
class Row:
    family: str
    agent: str
    verdict: Verdict
    wall_s: float


@dataclass
class Outcome:
    rows: list[Row]
    host: host.HostAfter
    limits: Limits

    @property
    def contained(self) -> bool:
        return all(r.verdict.contained for r in self.rows) and self.host.clean


class _PeakRss:
    """The most this process grew while the block ran (a tool that reads a whole file into the harness shows)."""

    def __init__(self):
        self.proc = psutil.Process()
        self.start = self.peak = self.proc.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True, name="selftest-rss")

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self.peak = max(self.peak, self.proc.memory_info().rss)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth(self) -> int:
        return max(0, self.peak - self.start)


def _reference(suite: Suite, task_id: str) -> list[dict]:
    """The ordinary task solved by the replay: its reference as tool calls, then a short final message."""
    return reference_calls(suite, task_id) + [say(f"Done: {task_id} is solved with the reference.")]


def run_row(family: Family, agent: str, suite: Suite, stamp: str, work: Path, runs: Path, key: str,
            marker: str, limits: Limits) -> tuple[Row, Path]:
    """One family under one agent: its run, then its check (and the ordinary task must have passed)."""
    run_id = f"selftest-{stamp}-{family.name}-{agent}"
    started = time.monotonic()
    persona = TaskScripts(runs / run_id / "selftest")
    results: dict[str, dict] = {}
    with ScriptedServer(persona=persona, port=0) as srv:
        ctx = Context(agent=agent, suite=suite, server_port=srv.port, limits=limits, marker=marker)
        scripts = family.attacks(ctx)
        ordinary = _reference(suite, ORDINARY_TASK)
        scripts[ORDINARY_TASK] = family.ordinary(ctx, ordinary) if family.ordinary else ordinary
        tasks = [suite.get(t) for t in scripts]
        for task in tasks:
            persona.add(task, scripts[task.id])
        settings = settings_of(
            run_id=run_id, model=srv.model_id, url=srv.url, agent=agent, tasks=",".join(t.id for t in tasks),
            conds="base", workers=family.workers, timeout_s=family.timeout_s, runs_root=str(runs),
            work_root=str(work), isolation="bwrap", server_slots=0)
        spec, _ = service.build_spec(settings, suite, api_key=key)
        # the scripts' order (the ordinary task after the attacks) and the families' own limits
        spec = replace(spec, tasks=tasks, limits=limits)
        runner = Scheduler(spec, suite, on_result=lambda r: results.__setitem__(r["task"], r))
        with _PeakRss() as rss:
            error = _within(runner.run, _row_deadline_s(family, len(tasks)))
    view = RunView(run_id, runs, dict(results), list(persona.foreign), rss.growth, family.timeout_s, error)
    verdict = _verdict(family, view, ctx)
    return Row(family.name, agent, verdict, time.monotonic() - started), runs / run_id


def judge_row(family: JudgeFamily, agent: str, stamp: str, runs: Path, key: str, marker: str) -> tuple[Row, Path]:
    """One judge family under one agent: its attack through the kind's own command, then its verdict."""
    folder = runs / f"selftest-{stamp}-{family.name}-{agent}"
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    box: dict = {}

    def work() -> None:
        box["verdict"] = family.run(JudgeContext(folder, marker, key), agent)

    error = _within(work, JUDGE_DEADLINE_S)
    verdict = Verdict(False, f"the attack's run failed: {error}"[:300]) if error else box["verdict"]
    return Row(family.name, agent, verdict, time.monotonic() - started), folder


JUDGE_DEADLINE_S = 600.0


def _row_deadline_s(family: Family, tasks: int) -> float:
    """How long a row's run may take before the selftest stops waiting for it: each session's limit, and a
    minute for set-up and grading."""
    return family.timeout_s * tasks + 60.0


def _within(fn, seconds: float) -> str | None:
    """fn() in a thread of its own, given up after `seconds`: a run that stalls (a tool blocked in the harness)
    is that row's finding, not the end of the selftest. The error, or None."""
    box: dict = {}

    def work() -> None:
        try:
            fn()
        except Exception as exc:  # the row says what failed; the other rows still run
            box["error"] = f"{type(exc).__name__}: {exc}"

    worker = threading.Thread(target=work, daemon=True, name="selftest-run")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        return f"the run did not end within {seconds:.0f} s (it stalled; its sessions may still be running)"
    return box.get("error")


def _verdict(family: Family, view: RunView, ctx: Context) -> Verdict:
    if view.error:
        return Verdict(False, f"the run failed: {view.error}"[:300])
    try:
        v = family.check(view, ctx)
    except Exception as exc:  # a record the check expected is missing or malformed: not contained, say why
        v = Verdict(False, f"the check could not read the records: {type(exc).__name__}: {exc}"[:300])
    after = view.result(ORDINARY_TASK)
    if after.get("outcome") != "pass":
        return Verdict(False, f"{v.evidence}; but then {ORDINARY_TASK}: "
                              f"{after.get('outcome') or 'no result'}")
    if view.foreign:
        return Verdict(False, f"{v.evidence}; but {len(view.foreign)} requests reached the model server from "
                              f"outside the agent: {view.foreign[0][:80]!r}")
    return Verdict(v.contained, f"{v.evidence}; then {ORDINARY_TASK}: pass")


@contextlib.contextmanager
def _key_in_environment(key: str):
    """KBENCH_API_KEY set to the marker while the suite runs, as `kbench run` would read it."""
    old = os.environ.get("KBENCH_API_KEY")
    os.environ["KBENCH_API_KEY"] = key
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("KBENCH_API_KEY", None)
        else:
            os.environ["KBENCH_API_KEY"] = old


def run_selftest(families: list[Family | JudgeFamily], agents: list[str], work: Path, runs: Path, jobs: int = 2,
                 suite: Suite | None = None, on_row=None, limits: Limits = SELFTEST_LIMITS) -> Outcome:
    """Every family under every agent, `jobs` rows at once, then the host check."""
    if not bwrap_path():
        raise RuntimeError("kbench selftest needs bubblewrap (apt-get install bubblewrap): its attacks are real "
                           "and must run inside the sandbox")
    suite = suite or load_suite("kbench")
    work, runs = Path(work).resolve(), Path(runs).resolve()
    work.mkdir(parents=True, exist_ok=True)
    runs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
    key, marker = f"sk-selftest-{secrets.token_hex(16)}", f"kbst{secrets.token_hex(6)}"
    start = host.before(work, runs)
    rows: list[Row] = []
    run_dirs: list[Path] = []
    lock = threading.Lock()

    def one(family: Family | JudgeFamily, agent: str) -> None:
        if isinstance(family, JudgeFamily):
            row, run_dir = judge_row(family, agent, stamp, runs, key, marker)
        else:
            row, run_dir = run_row(family, agent, suite, stamp, work, runs, key, marker, limits)
        with lock:
            rows.append(row)
            run_dirs.append(run_dir)
        if on_row:
            on_row(row)

    # a judge family runs under its own agents (the api agent for chat kinds) where those were asked for
    pairs = [(f, a) for f in families for a in agents if not isinstance(f, JudgeFamily) or a in f.agents]
    pairs += [(f, a) for f in families if isinstance(f, JudgeFamily) for a in f.agents
              if a not in AGENTS and (f, a) not in pairs]
    with _key_in_environment(key), ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="selftest") as pool:
        for fut in [pool.submit(one, f, a) for f, a in pairs]:
            fut.result()
    order = {(f.name, a): i for i, (f, a) in enumerate(pairs)}
    rows.sort(key=lambda r: order[(r.family, r.agent)])
    return Outcome(rows, host.after(start, marker, key, run_dirs), limits)
