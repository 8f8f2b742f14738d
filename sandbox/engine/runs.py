"""`kbench run`: every task x condition x seed through an agent in a fresh sandboxed folder, graded (or, with
defer_grading, left for regrade to grade), recorded.

The same code serves the CLI and the Dagster assets. An attempt's record is written whole or not at all: a folder
renamed into place last (sandbox/engine/attempt_folders.py, FolderBox) for the kinds that run an agent, a line of the run's
ledger (sandbox/engine/attempt_ledger.py) for the chat-only kinds. A killed harness never leaves a result that looks
finished: the same command again redoes exactly the attempts without one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
import traceback
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from sandbox.agents.pi import node_modules_of, pi_version
from sandbox.agents.record import EventLog, SessionStats
from sandbox.agents.wire import speed_summary
from sandbox.engine.attempt_page import changed_files, fingerprint, write_report
from sandbox.engine.chat import ChatInfra, ChatTimeout, NotCached
from sandbox.engine.kinds import Verdict, WorkKind, as_kind
from sandbox.engine.attempt_ledger import LedgerBox, RunLedger
from sandbox.engine.attempt_folders import RESULT, FolderBox, attempt_dir, is_false_claim
from sandbox.engine.slots import session_slot
from sandbox.engine.spec import Attempt, RunSpec, check_agent, open_agent, plan, server_slots_of, write_manifest
from sandbox.engine.stops import DiskFull, RunStopped, ServerDown
from sandbox.isolation.diskspace import ensure_room, ran_full, used_bytes
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import check_outside_repo, default_work_root
from sandbox.servers.probe import wait_for_server
from sandbox.tasks.validation import PrepareError
from task_defs.models import Suite
from task_defs.vocabulary import PENDING

MAX_REQUEUES = 5
UP_FRESH_S = 1.0  # a server check this recent stands for the next attempt (see Runner._wait_for_server)
RESULT_DEFAULTS = {"outcome": None, "infra": False, "infra_error": None, "detail": "", "test_duration_s": 0.0,
                   "agent_timeout": False, "over_budget": False, "latency_budget_s": None,
                   "false_claim": False, "test_kills": 0, "files_left_out": [],
                   "requeues": 0, "harness_error": None, "changed_files": []}
HARNESS_ERROR = "harness error"  # how infra_error begins when our own code failed, not the server


@dataclass
class Graded:
    """An attempt whose agent sessions are over: what the grading phase needs."""

    attempt: Attempt
    box: FolderBox | LedgerBox
    base: dict
    stats: SessionStats
    stages: dict  # seconds per stage so far (Runner._finish records them)
    agent_done: float  # monotonic time the agent phase ended: the wait for a grader starts here


def _test_kills(session) -> int:
    """What a limit or the cleanup killed in the hidden test's session. Processes its namespace's end took are in
    watchdog.log but not counted against the attempt: kb.load's own child is still running when the judge exits."""
    if session is None:
        return 0
    return session.kill_count - sum(k.count for k in session.kills if k.reason == "teardown")


class Runner:
    """Executes one run: a queue of attempts, N workers, requeue on server trouble."""

    def __init__(self, spec: RunSpec, work: Suite | WorkKind, on_result=None):
        self.spec, self.kind, self.on_result = spec, as_kind(work), on_result
        self.run_dir = Path(spec.runs_root) / spec.run_id
        self.work_dir = check_outside_repo((spec.work_root or default_work_root()) / spec.run_id)
        self._work_prefix = f"{self.work_dir}{os.sep}"
        self.log_path = self.run_dir / "watchdog.log"
        self._lock = threading.Lock()
        self.requeues: dict[str, int] = {}
        self._t0: dict[str, float] = {}
        self._started: dict[str, str] = {}
        self._stages: dict[str, dict] = {}  # per attempt: seconds spent in each stage of this try
        self._grading: list = []
        self._errors: list[str] = []
        self._stopping: RunStopped | None = None  # why no further attempt may start (full disk, dead server)
        self._down_since: float | None = None  # when the server was last seen answering, if it stopped since
        self._up_at: float | None = None  # when this run's last check found the server answering
        self._room_at = float("-inf")  # when this run's last disk check found room for an attempt
        self._changes: dict[str, list[dict]] = {}  # attempt key -> the files its agent changed
        self._boxes: dict[str, FolderBox | LedgerBox] = {}  # attempt key -> where its current try is kept
        self.ledger: RunLedger | None = None  # the chat-only kinds' records

    def run(self) -> dict:
        check_agent(self.spec, self.kind)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.chmod(0o755)
        pi = pi_version(node_modules_of(self.spec.pi_path)) if self.spec.agent == "pi" else None
        self.slots = server_slots_of(self.spec, self.kind)
        self.spec = replace(self.spec, server_slots=self.slots.slots if self.slots else 0)  # the manifest's record
        try:
            write_manifest(self.spec, self.kind, self.run_dir, pi)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            raise DiskFull(f"no space left to write the run's manifest in {self.run_dir}: free space on that disk "
                           "(a stopped run's work folders are safe to delete), then rerun the same command") from None
        self._isolation = self.spec.isolation.resolve()
        attempts = plan(self.spec)
        if self.kind.runs_agent:
            todo = deque(a for a in attempts if not (self._dest(a) / RESULT).exists())
        else:
            self.ledger = RunLedger(self.run_dir)
            done = self.ledger.done_keys()
            self._ledger_requeues = self.ledger.requeue_counts()
            todo = deque(a for a in attempts if a.key not in done)
        summary = {"planned": len(attempts), "already_done": len(attempts) - len(todo), "ran": 0}
        with open_agent(self.spec, self.run_dir) as agent:
            self.agent = agent
            cache = None if self.kind.runs_agent else getattr(self.kind, "cache", None)
            if cache is not None and cache.holds_any():
                try:
                    with self.ledger.gathered():
                        self._replay(todo, summary)
                except OSError as exc:  # the last batch's write: those attempts have no line, a rerun redoes them
                    if exc.errno != errno.ENOSPC:
                        raise
                    self._stopping = self._stopping or DiskFull(f"no space left while recording results ({exc})")
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
                except DiskFull as exc:
                    self._stopping = self._stopping or exc
                except OSError as exc:
                    if exc.errno == errno.ENOSPC:
                        self._stopping = self._stopping or DiskFull(f"no space left while recording a result ({exc})")
                    else:
                        self._errors.append(f"grading: {type(exc).__name__}: {exc}")
                except Exception as exc:
                    self._errors.append(f"grading: {type(exc).__name__}: {exc}")
        if self._stopping:  # nothing was scored after the stop: those attempts have no result and are redone
            also = f"; {len(self._errors)} other harness errors: {'; '.join(self._errors[:3])}" if self._errors else ""
            raise type(self._stopping)(f"run stopped: {self._stopping}; {len(todo)} attempts not started{also}")
        if self._errors:  # surfaced, never dropped: those attempts have no result.json and the next run redoes them
            raise RuntimeError(f"{len(self._errors)} attempts failed inside the harness: "
                               + "; ".join(self._errors[:5]))
        return summary

    def _check_server(self) -> None:
        """Stop the run once the server has not answered for server_down_stop_s: every further attempt would only
        wait and end as infra, which says nothing about the model and costs hours."""
        with self._lock:
            since = self._down_since
        if since is not None and time.monotonic() - since >= self.spec.server_down_stop_s:
            raise ServerDown(f"the server at {self.spec.url} has not answered /health or /v1/models for "
                             f"{time.monotonic() - since:.0f} s: start it (or check --url) and run the same command "
                             "again; finished attempts are kept")

    def _places(self) -> dict[str, Path]:
        return {"work": self.work_dir, "runs": self.run_dir}

    def _workdir(self, a: Attempt) -> Path:
        return Path(self._work_prefix + a.key)

    def _dest(self, a: Attempt) -> Path:
        return attempt_dir(self.spec.runs_root, self.spec.run_id, a.cond.name, a.task.id, a.seed)

    def _box(self, a: Attempt) -> FolderBox | LedgerBox:
        """Where this attempt's current try is kept (the one the last agent_phase opened, else a new one)."""
        with self._lock:
            box = self._boxes.get(a.key)
            if box is None:
                box = self._boxes[a.key] = (FolderBox(self._dest(a)) if self.ledger is None else
                                            LedgerBox(self.ledger, a.key, self._ledger_requeues))
            return box

    def _work(self, todo: deque, summary: dict, graders: ThreadPoolExecutor) -> None:
        while True:
            with self._lock:
                if not todo or self._stopping:
                    return
                a = todo.popleft()
            self._attempt(a, todo, summary, graders)

    def _replay(self, todo: deque, summary: dict) -> None:
        """Attempts whose every request is in the reply cache, done first and in this one thread: with nothing to
        wait for they are interpreter work only, which more threads would just take turns at. One that meets a
        request not kept is left, in its place in the queue, for the workers."""
        left: deque = deque()
        while todo and not self._stopping:
            a = todo.popleft()
            if not self._attempt(a, todo, summary, None, replay=True):
                left.append(a)
        todo.extendleft(reversed(left))

    def _attempt(self, a: Attempt, todo: deque, summary: dict, graders: ThreadPoolExecutor | None,
                 replay: bool = False) -> bool:
        """One try of one attempt, its result reported (or it is back in the queue); False, with nothing kept, when
        a replay met a request that is not in the cache."""
        try:
            self._check_server()
            self._ensure_room()
            outcome = self.agent_phase(a, replay)
        except NotCached:
            self._forget(a)
            return False
        except (RunStopped, OSError) as exc:
            if not isinstance(exc, RunStopped) and exc.errno != errno.ENOSPC:
                outcome = self._harness_error(a, exc, "setting up or running the agent")
                if outcome is None:  # not even that could be written: the error ends the run, a rerun redoes it
                    return True
            else:
                with self._lock:  # back in the queue; no further attempt starts
                    todo.appendleft(a)
                    self._stopping = self._stopping or (exc if isinstance(exc, RunStopped) else DiskFull(str(exc)))
                return True
        except Exception as exc:  # a harness bug: recorded as such for this attempt, the run goes on
            outcome = self._harness_error(a, exc, "setting up or running the agent")
            if outcome is None:
                return True
        if outcome is None:  # server trouble: back of the queue, at most MAX_REQUEUES times
            with self._lock:
                todo.append(a)
        elif isinstance(outcome, Graded) and not self.kind.runs_agent:
            # A chat attempt's grading is in-process work (a shell trial's sandbox at most) done after its
            # requests: its worker does it, sparing a thread handoff per attempt on a strike of thousands.
            try:
                self._report(summary, self._grade_or_record_error, outcome)
            except Exception as exc:  # as run() treats a grader's failure
                with self._lock:
                    if isinstance(exc, DiskFull) or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
                        self._stopping = self._stopping or (
                            exc if isinstance(exc, DiskFull) else DiskFull(f"no space left while recording a "
                                                                           f"result ({exc})"))
                    else:
                        self._errors.append(f"grading: {type(exc).__name__}: {exc}")
        elif isinstance(outcome, Graded):
            # Grading runs beside the next agent session, so the model server never waits on a hidden test.
            fut = graders.submit(self._report, summary, self._grade_or_record_error, outcome)
            with self._lock:
                self._grading.append(fut)
        else:
            self._report(summary, lambda r: r, outcome)
        return True

    def _forget(self, a: Attempt) -> None:
        """Drop what a try that is given up without a record left in memory."""
        with self._lock:
            self._boxes.pop(a.key, None)
        self._t0.pop(a.key, None)
        self._started.pop(a.key, None)
        self._stages.pop(a.key, None)

    def _ensure_room(self) -> None:
        """Room for the next attempt. For chat attempts, which write one line each, a check this recent stands (a
        strike of cached replies paid two file-system queries an attempt for it); a disk that fills in between
        fails the line's write, which stops the run the same way."""
        now = time.monotonic()
        if not self.kind.runs_agent and now - self._room_at < UP_FRESH_S:
            return
        ensure_room(self._places(), self.spec.room_needed())
        self._room_at = now

    def _report(self, summary: dict, make, arg) -> None:
        try:
            result = make(arg)
        except DiskFull as exc:  # stop starting attempts now, not when the run ends
            with self._lock:
                self._stopping = self._stopping or exc
            raise
        with self._lock:
            summary["ran"] += 1
            if self.on_result:
                self.on_result(result)

    def _grade_or_record_error(self, job: Graded) -> dict:
        """grade_phase; an exception in it (other than a full disk, which stops the run) becomes the attempt's
        harness-error result."""
        try:
            return self.grade_phase(job)
        except DiskFull:
            raise
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
                raise
            result = self._harness_error(job.attempt, exc, "grading or recording", job.stats, job.base)
            if result is None:
                raise
            return result

    def _harness_error(self, a: Attempt, exc: BaseException, phase: str, stats: SessionStats | None = None,
                       base: dict | None = None) -> dict | None:
        """The record of an attempt our own code failed on: outcome infra with harness_error saying where and why,
        so the report and triage show it, it counts as attrition, never as the model's failure, and it is not
        silently missing from pass@1. None (and the error kept for the end of the run) when even that cannot be
        written."""
        message = f"{HARNESS_ERROR} while {phase}: {type(exc).__name__}: {exc}"[:1000]
        try:
            box = self._box(a)
            box.ensure()
            box.events.write({"type": "harness_error", "phase": phase, "message": message,
                              "traceback": "".join(traceback.format_exception(exc))[-4000:]})
            if not self.spec.keep_work:
                remove_tree(self._workdir(a), ignore_errors=True)
            return self._finish(a, box, {**(base or self._base(a)), **self._counts(stats or SessionStats()),
                                         "outcome": "infra", "infra": True, "infra_error": message,
                                         "harness_error": message, "detail": message, "requeues": box.requeues()})
        except Exception as again:  # noqa: BLE001 - the first error is the one to keep
            with self._lock:
                self._errors.append(f"{a.key}: {type(exc).__name__}: {exc} (and recording it failed: {again})")
            return None

    def _base(self, a: Attempt) -> dict:
        return {"run_id": self.spec.run_id, "model": self.spec.model, "agent": self.spec.agent,
                "condition": a.cond.name, "task": a.task.id, "seed": a.seed, "kind": self.kind.name,
                **self.kind.unit_fields(a.task), "suite_fingerprint": self.kind.fingerprint,
                "sampling": a.cond.sampling_label(),
                "started_at": self._started.get(a.key) or time.strftime("%Y-%m-%dT%H:%M:%S"),
                "isolation": self._isolation}

    def agent_phase(self, a: Attempt, replay: bool = False) -> Graded | dict | None:
        """Set up the folder and run the agent (a chat kind: ask; with `replay`, from the reply cache alone, else
        NotCached): a finished result (skipped, infra), work to grade, or None."""
        box = self._box(a)
        box.open()
        events = box.events
        self._started[a.key] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self._t0[a.key] = time.monotonic()
        stages = self._stages[a.key] = {}
        base = self._base(a)
        missing = self.kind.missing(a.task)
        if missing:
            msg = f"requires {', '.join(missing)}, not found on this machine"
            box.write_tests(f"skipped: {msg}\n")
            return self._finish(a, box, {**base, "outcome": "skipped", "detail": msg})
        if self.kind.runs_agent:
            stats, infra = self._sessions(a, events)
        else:
            stats, infra = self._chat(a, box, stages, replay)
        # a chat attempt wrote nothing to disk: there is nothing a full disk could have spoiled
        full = ran_full(self._places()) if self.kind.runs_agent else None
        if full and not infra:
            workdir = self._workdir(a)
            own = used_bytes(workdir)
            if own > self.spec.limits.disk_bytes:
                # The agent's own files outgrew its budget faster than the watchdog looks and filled the disk: the
                # model's doing, like the disk limit's kill. They are beyond the budget, so they go; then the
                # hidden test judges what is left (usually nothing), and the disk is usable again.
                events.write({"type": "disk_limit", "used_bytes": own, "limit_bytes": self.spec.limits.disk_bytes,
                              "message": f"the work folder held {own // 2**20} MB, over the session's "
                                         f"{self.spec.limits.disk_bytes // 2**20} MB, and filled the disk; removed"})
                remove_tree(workdir, ignore_errors=True)
                workdir.mkdir(parents=True, exist_ok=True)
                stats.kills += 1
                full = ran_full(self._places())
        infra = infra or full  # writes may have failed: whatever the agent did is not its score
        if infra:
            if not self.spec.keep_work and self.kind.runs_agent:  # redone from scratch; it may be what fills the disk
                remove_tree(self._workdir(a), ignore_errors=True)
            with self._lock:
                n = self.requeues[a.key] = self.requeues.get(a.key, 0) + 1
                self._up_at = None  # the server may be what failed: the next attempt checks it again
            events.write({"type": "requeue", "attempt": n, "reason": infra})
            if n <= MAX_REQUEUES:
                box.requeue()  # the failed try's events stay as evidence, numbered across reruns of the command
                return None
            return self._finish(a, box, {**base, **self._counts(stats), "outcome": "infra", "infra": True,
                                         "infra_error": infra, "requeues": box.requeues()})
        return Graded(a, box, base, stats, stages, time.monotonic())

    def grade_phase(self, job: Graded) -> dict:
        a, box, stats = job.attempt, job.box, job.stats
        t = time.monotonic()
        job.stages["grade_wait_s"] = round(t - job.agent_done, 3)
        workdir = self._workdir(a)
        if self.spec.defer_grading:  # graded later from the record (regrade), e.g. where the GPU is free
            g = Verdict(PENDING, "not graded yet: the run was started with grading deferred", 0.0)
        elif not self.kind.runs_agent and stats.stop_reason == "timeout":
            # a chat attempt cut off by its time has replies missing: a safety stop, never a wrong answer
            g = Verdict("timeout", "the attempt's time ran out before the server's replies were in", 0.0)
        elif self.kind.runs_agent:
            g = self.kind.grade(a.task, workdir, box.tests_path, self.spec.isolation, self.log_path)
        else:
            g = self.kind.grade_kept(a.task, box.files, workdir, self.spec.isolation, self.log_path)
            box.write_tests(g.output)
        # the hidden test itself, and what starting and ending its sandbox cost around it
        job.stages["test_s"] = round(g.duration_s, 3)
        job.stages["judge_overhead_s"] = round(max(0.0, time.monotonic() - t - g.duration_s), 3)
        t = time.monotonic()
        # a chat attempt's grading that ran nothing (no scratch folder) wrote nothing a full disk could spoil
        on_disk = self.kind.runs_agent or os.path.lexists(workdir)
        full = ran_full(self._places()) if on_disk else None
        if full:  # the hidden test's verdict cannot be trusted: no result, so the next run redoes the attempt
            raise DiskFull(f"{full} (while grading {a.key})")
        budget = self.spec.budget_for(job.base.get("tier"))
        left_out = box.keep_files(workdir) if self.kind.runs_agent else box.keep_kept()
        if on_disk and not self.spec.keep_work:
            remove_tree(workdir, ignore_errors=True)
        result = {**job.base, **self._counts(stats), "outcome": g.outcome, "infra": False, "detail": g.detail,
                  "test_duration_s": round(g.duration_s, 3), "agent_timeout": stats.stop_reason == "timeout",
                  "latency_budget_s": budget, "over_budget": budget is not None and stats.duration_s > budget,
                  "false_claim": is_false_claim(stats.final_message, g.outcome),
                  "test_kills": _test_kills(g.session),
                  "files_left_out": left_out, "requeues": box.requeues(), **g.extra}
        with self._lock:
            changes = self._changes.pop(a.key, None)
        if changes is not None:
            result["changed_files"] = changes
        job.stages["record_s"] = round(time.monotonic() - t, 3)  # keeping the final files, freeing the folder
        done = self._finish(a, box, result)
        if changes is not None and isinstance(box, FolderBox):
            try:  # a page for people; the record is already whole without it
                write_report(box.dest, done, self.kind.prompts(a.task), getattr(a.task, "setup_dir", None))
            except OSError as exc:  # said in the run's log beside the watchdog's lines
                with contextlib.suppress(OSError), open(self.log_path, "a", encoding="utf-8") as log:
                    log.write(f"{a.key}: report.md not written: {exc}\n")
        return done

    def _sessions(self, a: Attempt, events: EventLog) -> tuple[SessionStats, str | None]:
        """Prepare the folder, then one agent session per prompt; returns the stats and any infra error."""
        total = SessionStats()
        stages = self._stages.setdefault(a.key, {})
        workdir = self._workdir(a)
        t = time.monotonic()
        try:
            self.kind.prepare(a.task, workdir, self.spec.isolation)
        except PrepareError as exc:
            return total, f"task setup failed: {exc}"
        before = fingerprint(workdir)
        stages["setup_s"] = round(time.monotonic() - t, 3)
        stages["agent_s"] = stages["server_wait_s"] = stages["slot_wait_s"] = 0.0
        limits = self.spec.limits.with_(timeout_s=self.kind.timeout_s(a.task, self.spec.timeout_s),
                                        max_turns=getattr(a.task, "max_steps", None))
        isolation = self.kind.session_isolation(a.task, self.spec.isolation)
        for i, prompt in enumerate(self.kind.prompts(a.task)):
            down = self._wait_for_server(stages)
            if down:
                return total, down
            events.session = i
            t = time.monotonic()
            with session_slot(self.slots, events):
                t_slot = time.monotonic()
                stats = self.agent.run(prompt, workdir, a.cond.for_attempt(a.seed), isolation, limits, events,
                                       self.log_path)
            stages["slot_wait_s"] = round(stages["slot_wait_s"] + t_slot - t, 3)
            stages["agent_s"] = round(stages["agent_s"] + time.monotonic() - t_slot, 3)
            total.add(stats)
            if stats.infra_error:
                return total, stats.infra_error
            if stats.stop_reason == "timeout":
                break
        with self._lock:  # before the hidden test, which may write files of its own
            self._changes[a.key] = changed_files(before, fingerprint(workdir))
        return total, None

    def _wait_for_server(self, stages: dict) -> str | None:
        """None once the server answers; else the infra error of an attempt that could not start. A server that
        answered this run's check less than UP_FRESH_S ago is not asked again: a strike of short attempts (most
        answered from the reply cache) paid a round trip each for it. One that died since fails the attempt's own
        request, which requeues it, and the next check waits for the server."""
        t = time.monotonic()
        with self._lock:
            fresh = self._up_at is not None and t - self._up_at < UP_FRESH_S
        up = fresh or wait_for_server(self.spec.url, self.spec.api_key, timeout_s=self.spec.server_wait_s)
        stages["server_wait_s"] = round(stages["server_wait_s"] + time.monotonic() - t, 3)
        with self._lock:
            if up:
                self._down_since = None
                self._up_at = self._up_at if fresh else time.monotonic()
            elif self._down_since is None:  # it was down for the whole wait, at least
                self._down_since = time.monotonic() - self.spec.server_wait_s
        return None if up else f"server at {self.spec.url} did not answer /health or /v1/models"

    def _chat(self, a: Attempt, box: LedgerBox, stages: dict, replay: bool) -> tuple[SessionStats, str | None]:
        """A chat-only kind's attempt: its execute() asks the server through a ChatSession and keeps the replies in
        the box. A replay asks nothing (the cache answers or NotCached is raised), so it waits for no server."""
        stages["setup_s"] = stages["agent_s"] = stages["server_wait_s"] = stages["slot_wait_s"] = 0.0
        down = None if replay else self._wait_for_server(stages)
        if down:
            return SessionStats(), down
        chat = self.agent.session(a.cond.for_attempt(a.seed), self.kind.timeout_s(a.task, self.spec.timeout_s),
                                  box.events, self.slots, a.seed, replay)
        t = time.monotonic()
        try:
            self.kind.execute(a.task, chat, box.files)
            chat.stats.stop_reason = "stop"
        except ChatTimeout:
            chat.stats.stop_reason = "timeout"
        except ChatInfra as exc:
            chat.stats.stop_reason, chat.stats.infra_error = "error", str(exc)
        chat.stats.duration_s = time.monotonic() - t
        stages["slot_wait_s"] = round(chat.slot_wait_s, 3)
        stages["agent_s"] = round(chat.stats.duration_s - chat.slot_wait_s, 3)
        return chat.stats, chat.stats.infra_error

    @staticmethod
    def _counts(s: SessionStats) -> dict:
        return {"duration_s": round(s.duration_s, 3), "turns": s.turns, "input_tokens": s.input_tokens,
                "output_tokens": s.output_tokens, "cutoffs": s.cutoffs, "tool_calls": s.tool_calls,
                "tool_errors": s.tool_errors, "tool_format_errors": s.tool_format_errors,
                "native_calls": s.native_calls, "text_calls": s.text_calls, "watchdog_kills": s.kills,
                "outside_writes": len(s.outside_writes), "outside_write_paths": s.outside_writes[:50],
                "stop_reason": s.stop_reason, "server_error": s.server_error,
                "final_message": (s.final_message or "")[-2000:], **speed_summary(s.requests)}

    def _finish(self, a: Attempt, box: FolderBox | LedgerBox, fields: dict) -> dict:
        """Every result has the same keys, whatever the outcome: later readers rely on it."""
        result = {**RESULT_DEFAULTS, **NO_COUNTS, **fields}
        result["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        # this try only: setup, agent sessions, grading and records, without earlier requeued tries
        result["wall_s"] = round(time.monotonic() - self._t0.pop(a.key, time.monotonic()), 3)
        self._started.pop(a.key, None)
        result["stages"] = self._stages.pop(a.key, {})
        box.finish(result)
        with self._lock:
            self._boxes.pop(a.key, None)
        return result


NO_COUNTS = Runner._counts(SessionStats())  # the counts of an attempt no session ran
