"""An attempt of a chat kind (text jobs, tool-use trials, capability items, the breakdown's prompts): the kind's
`execute` asks the server through a ChatSession (sandbox/engine/chat.py) and keeps the replies as texts by name;
`grade_kept` grades those texts. No folder, unless grading itself runs something (a shell trial, a hidden test),
which it does in the scratch folder it is given. The record is a line of the run's ledger
(sandbox/engine/attempt_ledger.py), since such attempts are small and many."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sandbox.engine.attempt_ledger import LedgerBox, RunLedger
from sandbox.engine.attempt_state import AttemptState
from sandbox.engine.chat import ChatInfra, ChatTimeout
from sandbox.engine.kinds import ChatKind, Verdict
from sandbox.engine.server_watch import UP_FRESH_S, ServerWatch
from sandbox.engine.spec import Attempt, RunSpec


class ChatExecutor:
    # In-process work (a shell trial's sandbox at most) done right after the requests: the worker does it, sparing a
    # thread handoff per attempt on a strike of thousands.
    grades_inline = True
    # A line per attempt: a disk check this recent stands (a strike of cached replies paid two file-system queries
    # an attempt for it); a disk that fills in between fails the line's write, which stops the run the same way.
    room_fresh_s = UP_FRESH_S

    def __init__(self, spec: RunSpec, kind: ChatKind, client, slots, server: ServerWatch, run_dir: Path,
                 work_dir: Path, log_path: Path):
        self.spec, self.kind, self.client, self.slots, self.server = spec, kind, client, slots, server
        self.log_path = log_path
        self._prefix = f"{work_dir}/"
        self.ledger = RunLedger(run_dir)
        self._requeues = self.ledger.requeue_counts()  # tries given back by earlier runs of the command

    def workdir(self, a: Attempt) -> Path:
        return Path(self._prefix + a.key)  # the grading's scratch folder, made only if grading runs something

    def pending(self, attempts: list[Attempt]) -> list[Attempt]:
        done = self.ledger.done_keys()
        return [a for a in attempts if a.key not in done]

    def new_box(self, a: Attempt) -> LedgerBox:
        return LedgerBox(self.ledger, a.key, self._requeues)

    def replays(self) -> bool:
        cache = getattr(self.kind, "cache", None)
        return cache is not None and cache.holds_any()

    def gathered(self):
        return self.ledger.gathered()

    def execute(self, st: AttemptState, replay: bool) -> str | None:
        """Ask what the unit needs. A replay asks nothing (the cache answers, or NotCached is raised), so it waits
        for no server. A chat attempt writes nothing to disk, so a full disk cannot have spoiled it."""
        a, stages = st.attempt, st.stages
        stages["setup_s"] = stages["agent_s"] = stages["server_wait_s"] = stages["slot_wait_s"] = 0.0
        down = None if replay else self.server.wait(stages)
        if down:
            return down
        chat = self.client.session(a.cond.for_attempt(a.seed), self.kind.timeout_s(a.task, self.spec.timeout_s),
                                   st.box.events, self.slots, a.seed, replay)
        st.stats = chat.stats
        t = time.monotonic()
        try:
            self.kind.execute(a.task, chat, st.box.files)
            chat.stats.stop_reason = "stop"
        except ChatTimeout:
            chat.stats.stop_reason = "timeout"
        except ChatInfra as exc:
            chat.stats.stop_reason, chat.stats.infra_error = "error", str(exc)
        chat.stats.duration_s = time.monotonic() - t
        stages["slot_wait_s"] = round(chat.slot_wait_s, 3)
        stages["agent_s"] = round(chat.stats.duration_s - chat.slot_wait_s, 3)
        return chat.stats.infra_error

    def discard(self, st: AttemptState) -> None:
        """Nothing on disk to drop: the replies go with the box."""

    def verdict(self, st: AttemptState) -> Verdict:
        if st.stats.stop_reason == "timeout":  # replies are missing: a safety stop, never a wrong answer
            return Verdict("timeout", "the attempt's time ran out before the server's replies were in", 0.0)
        g = self.kind.grade_kept(st.attempt.task, st.box.files, self.workdir(st.attempt), self.spec.isolation,
                                 self.log_path)
        st.box.write_tests(g.output)
        return g

    def graded_on_disk(self, st: AttemptState) -> bool:
        return os.path.lexists(self.workdir(st.attempt))  # grading that ran nothing made no scratch folder

    def keep(self, st: AttemptState) -> list[str]:
        return st.box.keep_kept()

    def recorded(self, st: AttemptState, result: dict) -> None:
        """A line of the ledger is the whole record."""
