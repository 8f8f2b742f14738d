"""`kbench run`: every unit x condition x seed of a kind, carried out by the kind's executor, graded (or, with
defer_grading, left for regrade to grade), recorded.

The Scheduler does what every kind shares: the plan and resume, the queue, requeue on server trouble and the
infra/model split, server slots, the stops (a full disk, a silent server), the manifest and each attempt's record.
How one attempt is carried out is its executor's: an agent's sessions in a folder (agent_executor.py) or a chat
exchange kept as texts (chat_executor.py). An attempt's record is written whole or not at all, so a killed harness
never leaves a result that looks finished: the same command again redoes exactly the attempts without one.
"""

from __future__ import annotations

import errno
import threading
import time
import traceback
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from sandbox.agents.pi import node_modules_of, pi_version
from sandbox.engine.agent_executor import AgentExecutor
from sandbox.engine.attempt_results import HARNESS_ERROR, NO_COUNTS, RESULT_DEFAULTS, counts, graded
from sandbox.engine.attempt_state import AttemptState, Executor
from sandbox.engine.chat import NotCached
from sandbox.engine.chat_executor import ChatExecutor
from sandbox.engine.kinds import Verdict, WorkKind, as_kind
from sandbox.engine.server_watch import ServerWatch
from sandbox.engine.slots import ServerSlots
from sandbox.engine.spec import RunSpec, check_agent, open_agent, plan, server_slots_of, write_manifest
from sandbox.engine.stops import DiskFull, RunStopped
from sandbox.isolation.diskspace import ensure_room, ran_full
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import check_outside_repo, default_work_root
from task_defs.models import Suite
from task_defs.vocabulary import PENDING

MAX_REQUEUES = 5
REQUEUED, TO_GRADE = "requeued", "to grade"  # how a try left _execute, when it left no result


def disk_full(exc: BaseException) -> DiskFull | None:
    """The stop a full disk calls for, if that is what `exc` is."""
    if isinstance(exc, DiskFull):
        return exc
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return DiskFull(f"no space left while recording results ({exc})")
    return None


class Scheduler:
    """Executes one run: a queue of attempts, N workers, requeue on server trouble."""

    def __init__(self, spec: RunSpec, work: Suite | WorkKind, on_result=None, slots: ServerSlots | None = None):
        """`slots`: the server's slots as the command already settled them (then spec.server_slots says their
        count); None: settled here."""
        self.spec, self.kind, self.on_result, self.slots = spec, as_kind(work), on_result, slots
        self.run_dir = Path(spec.runs_root) / spec.run_id
        self.work_dir = check_outside_repo((spec.work_root or default_work_root()) / spec.run_id)
        self.log_path = self.run_dir / "watchdog.log"
        self._lock = threading.Lock()
        self._grading: list = []
        self._errors: list[str] = []
        self._stopping: RunStopped | None = None  # why no further attempt may start
        self._room_at = float("-inf")  # when the last disk check found room for an attempt
        self.server = ServerWatch(spec.url, spec.api_key, spec.server_wait_s, spec.server_down_stop_s)

    def _executor(self, agent) -> Executor:
        if self.kind.runs_agent:
            return AgentExecutor(self.spec, self.kind, agent, self.slots, self.server, self._places, self.work_dir,
                                 self.log_path)
        return ChatExecutor(self.spec, self.kind, agent, self.slots, self.server, self.run_dir, self.work_dir,
                            self.log_path)

    def run(self) -> dict:
        check_agent(self.spec, self.kind)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.chmod(0o755)
        pi = pi_version(node_modules_of(self.spec.pi_path)) if self.spec.agent == "pi" else None
        if self.slots is None:
            self.slots = server_slots_of(self.spec, self.kind)
            self.spec = replace(self.spec, server_slots=self.slots.slots if self.slots else 0)  # the manifest's
        try:
            write_manifest(self.spec, self.kind, self.run_dir, pi)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            raise DiskFull(f"no space left to write the run's manifest in {self.run_dir}: free space on that disk "
                           "(a stopped run's work folders are safe to delete), then rerun the same command") from None
        self._isolation = self.spec.isolation.resolve()
        with open_agent(self.spec, self.run_dir) as agent:
            self.executor = self._executor(agent)
            attempts = plan(self.spec)
            todo = deque(AttemptState(a) for a in self.executor.pending(attempts))
            summary = {"planned": len(attempts), "already_done": len(attempts) - len(todo), "ran": 0}
            if self.executor.replays():
                try:
                    with self.executor.gathered():
                        self._replay(todo, summary)
                except OSError as exc:  # the last batch's write: those attempts have no line, a rerun redoes them
                    self._stop_or_raise(exc)
            n = max(1, min(self.spec.workers, len(todo) or 1))
            with ThreadPoolExecutor(max_workers=n, thread_name_prefix="grader") as graders:
                workers = [threading.Thread(target=self._work, args=(todo, summary, graders), daemon=True)
                           for _ in range(n)]
                for w in workers:
                    w.start()
                for w in workers:
                    w.join()
            for fut in self._grading:
                try:
                    fut.result()
                except Exception as exc:
                    self._stop_or_keep(exc)
        if self._stopping:  # nothing was scored after the stop: those attempts have no result and are redone
            also = f"; {len(self._errors)} other harness errors: {'; '.join(self._errors[:3])}" if self._errors else ""
            raise type(self._stopping)(f"run stopped: {self._stopping}; {len(todo)} attempts not started{also}")
        if self._errors:  # surfaced, never dropped: those attempts have no record and the next run redoes them
            raise RuntimeError(f"{len(self._errors)} attempts failed inside the harness: "
                               + "; ".join(self._errors[:5]))
        return summary

    def _stop(self, why: RunStopped) -> None:
        with self._lock:
            self._stopping = self._stopping or why

    def _stop_or_raise(self, exc: BaseException) -> None:
        full = disk_full(exc)
        if full is None:
            raise exc
        self._stop(full)

    def _stop_or_keep(self, exc: BaseException) -> None:
        """A grading's failure: a full disk stops the run; anything else is kept for the end of the run."""
        full = disk_full(exc)
        if full is not None:
            self._stop(full)
            return
        with self._lock:
            self._errors.append(f"grading: {type(exc).__name__}: {exc}")

    def _places(self) -> dict[str, Path]:
        return {"work": self.work_dir, "runs": self.run_dir}

    def _work(self, todo: deque, summary: dict, graders: ThreadPoolExecutor) -> None:
        while True:
            with self._lock:
                if not todo or self._stopping:
                    return
                st = todo.popleft()
            self._attempt(st, todo, summary, graders)

    def _replay(self, todo: deque, summary: dict) -> None:
        """Attempts whose every request is in the reply cache, done first and in this one thread: with nothing to
        wait for they are interpreter work only, which more threads would just take turns at. One that meets a
        request not kept is left, in its place in the queue, for the workers."""
        left: deque = deque()
        while todo and not self._stopping:
            st = todo.popleft()
            if not self._attempt(st, todo, summary, None, replay=True):
                left.append(st)
        todo.extendleft(reversed(left))

    def _attempt(self, st: AttemptState, todo: deque, summary: dict, graders: ThreadPoolExecutor | None,
                 replay: bool = False) -> bool:
        """One try of one attempt, its result reported (or it is back in the queue); False, with nothing kept, when
        a replay met a request that is not in the cache."""
        try:
            self.server.check()
            self._ensure_room()
            outcome = self._execute(st, replay)
        except NotCached:
            st.box = None
            return False
        except (RunStopped, OSError) as exc:
            why = exc if isinstance(exc, RunStopped) else disk_full(exc)
            if why is not None:  # back in the queue; no further attempt starts
                with self._lock:
                    todo.appendleft(st)
                self._stop(why)
                return True
            outcome = self._harness_error(st, exc, "setting up or running the agent")
        except Exception as exc:  # a harness bug: recorded as such for this attempt, the run goes on
            outcome = self._harness_error(st, exc, "setting up or running the agent")
        if outcome == REQUEUED:  # server trouble: back of the queue, at most MAX_REQUEUES times
            with self._lock:
                todo.append(st)
        elif outcome == TO_GRADE:
            if self.executor.grades_inline:
                try:
                    self._report(summary, self._grade_or_record_error(st))
                except Exception as exc:  # as run() treats a grader's failure
                    self._stop_or_keep(exc)
            else:
                fut = graders.submit(lambda: self._report(summary, self._grade_or_record_error(st)))
                with self._lock:
                    self._grading.append(fut)
        else:  # finished without grading (skipped, infra), or None: a harness error kept for the run's end
            self._report(summary, outcome)
        return True

    def _ensure_room(self) -> None:
        now = time.monotonic()
        if now - self._room_at < self.executor.room_fresh_s:
            return
        ensure_room(self._places(), self.spec.room_needed())
        self._room_at = now

    def _report(self, summary: dict, result: dict | None) -> None:
        if result is None:  # its error is kept for the end of the run
            return
        with self._lock:
            summary["ran"] += 1
            if self.on_result:
                self.on_result(result)

    def _execute(self, st: AttemptState, replay: bool) -> dict | str:
        """Open a try and carry it out: a finished result (skipped, infra), TO_GRADE, or REQUEUED."""
        a = st.attempt
        st.box = self.executor.new_box(a)
        st.box.open()
        st.begin()
        st.base = self._base(st)
        missing = self.kind.missing(a.task)
        if missing:
            msg = f"requires {', '.join(missing)}, not found on this machine"
            st.box.write_tests(f"skipped: {msg}\n")
            return self._finish(st, {**st.base, "outcome": "skipped", "detail": msg})
        infra = self.executor.execute(st, replay)
        if infra:
            self.executor.discard(st)
            st.requeues += 1
            self.server.suspect()
            st.box.events.write({"type": "requeue", "attempt": st.requeues, "reason": infra})
            if st.requeues <= MAX_REQUEUES:
                st.box.requeue()  # the failed try's events stay as evidence, numbered across reruns of the command
                return REQUEUED
            return self._finish(st, {**st.base, **counts(st.stats), "outcome": "infra", "infra": True,
                                     "infra_error": infra, "requeues": st.box.requeues()})
        st.executed_at = time.monotonic()
        return TO_GRADE

    def _grade(self, st: AttemptState) -> dict:
        t = time.monotonic()
        st.stages["grade_wait_s"] = round(t - st.executed_at, 3)
        if self.spec.defer_grading:  # graded later from the record (regrade), e.g. where the GPU is free
            g = Verdict(PENDING, "not graded yet: the run was started with grading deferred", 0.0)
        else:
            g = self.executor.verdict(st)
        # the hidden test itself, and what starting and ending its sandbox cost around it
        st.stages["test_s"] = round(g.duration_s, 3)
        st.stages["judge_overhead_s"] = round(max(0.0, time.monotonic() - t - g.duration_s), 3)
        t = time.monotonic()
        on_disk = self.executor.graded_on_disk(st)
        full = ran_full(self._places()) if on_disk else None
        if full:  # the hidden test's verdict cannot be trusted: no result, so the next run redoes the attempt
            raise DiskFull(f"{full} (while grading {st.key})")
        left_out = self.executor.keep(st)
        if on_disk and not self.spec.keep_work:
            remove_tree(self.executor.workdir(st.attempt), ignore_errors=True)
        result = graded(st.base, st.stats, g, self.spec.budget_for(st.base.get("tier")), left_out,
                        st.box.requeues())
        if st.changes is not None:
            result["changed_files"] = st.changes
        st.stages["record_s"] = round(time.monotonic() - t, 3)  # keeping the final files, freeing the folder
        done = self._finish(st, result)
        self.executor.recorded(st, done)
        return done

    def _grade_or_record_error(self, st: AttemptState) -> dict | None:
        """The attempt's graded result; an exception in grading (other than a full disk, which stops the run)
        becomes its harness-error result."""
        try:
            return self._grade(st)
        except Exception as exc:
            if disk_full(exc) is not None:
                self._stop(disk_full(exc))
                raise
            result = self._harness_error(st, exc, "grading or recording")
            if result is None:
                raise
            return result

    def _harness_error(self, st: AttemptState, exc: BaseException, phase: str) -> dict | None:
        """The record of an attempt our own code failed on: outcome infra with harness_error saying where and why,
        so the report and triage show it, it counts as attrition, never as the model's failure, and it is not
        silently missing from pass@1. None (and the error kept for the end of the run) when even that cannot be
        written."""
        message = f"{HARNESS_ERROR} while {phase}: {type(exc).__name__}: {exc}"[:1000]
        try:
            if st.box is None:
                st.box = self.executor.new_box(st.attempt)
            st.box.ensure()
            st.box.events.write({"type": "harness_error", "phase": phase, "message": message,
                                 "traceback": "".join(traceback.format_exception(exc))[-4000:]})
            if not self.spec.keep_work:
                remove_tree(self.executor.workdir(st.attempt), ignore_errors=True)
            return self._finish(st, {**(st.base or self._base(st)), **counts(st.stats), "outcome": "infra",
                                     "infra": True, "infra_error": message, "harness_error": message,
                                     "detail": message, "requeues": st.box.requeues()})
        except Exception as again:  # noqa: BLE001 - the first error is the one to keep
            with self._lock:
                self._errors.append(f"{st.key}: {type(exc).__name__}: {exc} (and recording it failed: {again})")
            return None

    def _base(self, st: AttemptState) -> dict:
        a = st.attempt
        return {"run_id": self.spec.run_id, "model": self.spec.model, "agent": self.spec.agent,
                "condition": a.cond.name, "task": a.task.id, "seed": a.seed, "kind": self.kind.name,
                **self.kind.unit_fields(a.task), "suite_fingerprint": self.kind.fingerprint,
                "sampling": a.cond.sampling_label(), "reasoning_effort": a.cond.effort_label(),
                "started_at": st.started or time.strftime("%Y-%m-%dT%H:%M:%S"), "isolation": self._isolation}

    def _finish(self, st: AttemptState, fields: dict) -> dict:
        """Every result has the same keys, whatever the outcome: later readers rely on it."""
        result = {**RESULT_DEFAULTS, **NO_COUNTS, **fields}
        result["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        # this try only: setup, agent sessions, grading and records, without earlier requeued tries
        result["wall_s"] = round(time.monotonic() - (st.t0 or time.monotonic()), 3)
        result["stages"] = st.stages
        st.box.finish(result)
        return result
