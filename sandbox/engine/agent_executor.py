"""An attempt of a kind that runs the agent: its folder laid by the kind, one sandboxed session of the run's agent
(pi or builtin) per prompt, then the kind's grading of what the agent left there, through the judge. The record is a
folder renamed into place last (sandbox/engine/attempt_folders.py, FolderBox)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from sandbox.engine.attempt_folders import RESULT, FolderBox, attempt_dir
from sandbox.engine.attempt_page import changed_files, fingerprint, write_report
from sandbox.engine.attempt_state import AttemptState
from sandbox.engine.kinds import AgentKind, Verdict
from sandbox.engine.server_watch import ServerWatch
from sandbox.engine.slots import session_slot
from sandbox.engine.spec import Attempt, RunSpec
from sandbox.isolation.diskspace import ran_full, used_bytes
from sandbox.isolation.trees import remove_tree
from sandbox.tasks.validation import PrepareError


class AgentExecutor:
    grades_inline = False  # the hidden test runs beside the next session: the server never waits on it
    room_fresh_s = 0.0  # every attempt writes a folder of its own: its room is checked each time

    def __init__(self, spec: RunSpec, kind: AgentKind, agent, slots, server: ServerWatch, places: Callable,
                 work_dir: Path, log_path: Path):
        self.spec, self.kind, self.agent, self.slots, self.server = spec, kind, agent, slots, server
        self.places, self.log_path = places, log_path
        self._prefix = f"{work_dir}/"

    def workdir(self, a: Attempt) -> Path:
        return Path(self._prefix + a.key)

    def _dest(self, a: Attempt) -> Path:
        return attempt_dir(self.spec.runs_root, self.spec.run_id, a.cond.name, a.task.id, a.seed)

    def pending(self, attempts: list[Attempt]) -> list[Attempt]:
        return [a for a in attempts if not (self._dest(a) / RESULT).exists()]

    def new_box(self, a: Attempt) -> FolderBox:
        return FolderBox(self._dest(a))

    def replays(self) -> bool:
        return False

    def gathered(self):
        return contextlib.nullcontext()

    def execute(self, st: AttemptState, replay: bool) -> str | None:
        infra = self._sessions(st)
        full = ran_full(self.places())
        if full and not infra:
            full = self._over_budget(st)
        return infra or full  # writes may have failed: whatever the agent did is not its score

    def _over_budget(self, st: AttemptState) -> str | None:
        """The disk filled during the sessions. When the agent's own files outgrew its budget faster than the
        watchdog looks, that is the model's doing, like the disk limit's kill: they go, the hidden test judges what
        is left (usually nothing), and the disk is usable again. What is still full after that is infra."""
        workdir = self.workdir(st.attempt)
        own = used_bytes(workdir)
        limit = self.spec.limits.disk_bytes
        if own > limit:
            st.box.events.write({"type": "disk_limit", "used_bytes": own, "limit_bytes": limit,
                                 "message": f"the work folder held {own // 2**20} MB, over the session's "
                                            f"{limit // 2**20} MB, and filled the disk; removed"})
            remove_tree(workdir, ignore_errors=True)
            workdir.mkdir(parents=True, exist_ok=True)
            st.stats.kills += 1
        return ran_full(self.places())

    def _sessions(self, st: AttemptState) -> str | None:
        """Prepare the folder, then one agent session per prompt; the infra error, if any."""
        a, stages, events = st.attempt, st.stages, st.box.events
        workdir = self.workdir(a)
        t = time.monotonic()
        try:
            self.kind.prepare(a.task, workdir, self.spec.isolation)
        except PrepareError as exc:
            return f"task setup failed: {exc}"
        before = fingerprint(workdir)
        stages["setup_s"] = round(time.monotonic() - t, 3)
        stages["agent_s"] = stages["server_wait_s"] = stages["slot_wait_s"] = 0.0
        limits = self.spec.limits.with_(timeout_s=self.kind.timeout_s(a.task, self.spec.timeout_s),
                                        max_turns=getattr(a.task, "max_steps", None))
        isolation = self.kind.session_isolation(a.task, self.spec.isolation)
        # kinds with steps lay each step before its session and grade it right after (sandbox/tasks/steps.py)
        pre, post = getattr(self.kind, "before_session", None), getattr(self.kind, "after_session", None)
        for i, prompt in enumerate(self.kind.prompts(a.task)):
            if pre:
                try:
                    pre(a.task, i, workdir, self.spec.isolation)
                except PrepareError as exc:
                    return f"task setup failed: {exc}"
            down = self.server.wait(stages)
            if down:
                return down
            events.session = i
            t = time.monotonic()
            with session_slot(self.slots, events):
                t_slot = time.monotonic()
                stats = self.agent.run(prompt, workdir, a.cond.for_attempt(a.seed), isolation, limits, events,
                                       self.log_path)
            stages["slot_wait_s"] = round(stages["slot_wait_s"] + t_slot - t, 3)
            stages["agent_s"] = round(stages["agent_s"] + time.monotonic() - t_slot, 3)
            st.stats.add(stats)
            if stats.infra_error:
                return stats.infra_error
            go_on = post(a.task, i, workdir, self.spec.isolation, st.box.tests_path.parent, self.log_path) \
                if post else True
            if stats.stop_reason == "timeout" or not go_on:
                break
        st.changes = changed_files(before, fingerprint(workdir))  # before the hidden test writes files of its own
        return None

    def discard(self, st: AttemptState) -> None:
        if not self.spec.keep_work:  # redone from scratch; it may be what fills the disk
            remove_tree(self.workdir(st.attempt), ignore_errors=True)

    def verdict(self, st: AttemptState) -> Verdict:
        return self.kind.grade(st.attempt.task, self.workdir(st.attempt), st.box.tests_path, self.spec.isolation,
                               self.log_path)

    def graded_on_disk(self, st: AttemptState) -> bool:
        return True

    def keep(self, st: AttemptState) -> list[str]:
        return st.box.keep_files(self.workdir(st.attempt))

    def recorded(self, st: AttemptState, result: dict) -> None:
        if st.changes is None:
            return
        try:  # a page for people; the record is already whole without it
            write_report(st.box.dest, result, self.kind.prompts(st.attempt.task),
                         getattr(st.attempt.task, "setup_dir", None))
        except OSError as exc:  # said in the run's log beside the watchdog's lines
            with contextlib.suppress(OSError), open(self.log_path, "a", encoding="utf-8") as log:
                log.write(f"{st.key}: report.md not written: {exc}\n")
