"""At most N agent sessions talk to one model server at once, counted across every process on this machine.

A model server takes a fixed number of requests at once (llama.cpp's slots); more are queued or refused, and a
queued request spends the agent's time limit waiting. `--workers` bounds one run, a Dagster pool bounds how many
partitions run; neither sees two runs (two CLI commands, a backfill beside a sensor's runs) aimed at one server.
Each session therefore holds one of N lock files kept per server URL: `flock` is released by the kernel when the
holder dies, so a killed or cancelled run can never leave a slot taken."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Iterator

from sandbox.agents.record import EventLog
from sandbox.servers.probe import reported_slots

POLL_S = 0.05
# Waiters in this process are woken the moment a slot held in this process is let go; a slot another process lets
# go is seen at the next poll. Without the wake-up a freed slot stood idle for half a poll on average, a loss a
# strike of short requests (the tool-use trials) measured as a tenth of its throughput.
_RELEASED: dict[Path, threading.Condition] = {}
_RELEASED_LOCK = threading.Lock()


def _released(folder: Path) -> threading.Condition:
    with _RELEASED_LOCK:
        return _RELEASED.setdefault(folder, threading.Condition())
# A server that says nothing of its capacity gets one session at a time: never overloaded, and a queued request
# never eats an agent's time limit; `--server-slots N` (KBENCH_SLOTS for Dagster) raises it, 0 lifts the limit.
UNKNOWN_SERVER_SLOTS = 1
# Requests of the chat-only kinds let wait at the server beyond its slots: one keeps every slot busy through the
# client's turn-around (reading a reply, grading, sending the next); more would only lengthen the queue.
CHAT_QUEUE = 1


def slot_capacity(configured: int | None, url: str, api_key: str | None = None) -> int:
    """The one answer to "how many sessions at once against this server", for the CLI, the Dagster endpoints
    and the UI's pool: the configured count (0: no limit), else what the server reports (llama.cpp's /props
    total_slots), else UNKNOWN_SERVER_SLOTS."""
    if configured is not None:
        return configured
    return reported_slots(url, api_key) or UNKNOWN_SERVER_SLOTS


def default_root() -> Path:
    return Path(os.environ.get("KBENCH_SLOTS_DIR") or Path(tempfile.gettempdir()) / f"kbench-slots-{os.getuid()}")


def server_key(url: str) -> str:
    """One key per server: the URL without scheme case, trailing slash or /v1."""
    root = url.strip().rstrip("/").removesuffix("/v1").lower()
    return hashlib.sha256(root.encode()).hexdigest()[:16]


class Ticket:
    """One request to the server: when it was sent, and when the server could start on it. A request sent while
    every slot is busy (as this process counts them) waits in the server's queue until one of the requests ahead
    ends; the server takes its queue in order, so that end is when it started, and its time to first token counts
    from there (the client's reading of the end lags the server by a little: the figure errs short by that)."""

    def __init__(self, queued: bool):
        self.sent = time.monotonic()
        self.queued = queued
        self.started: float | None = None if queued else self.sent

    def start_time(self) -> float:
        """When the server started on it. A queued request still waiting when its reply came was never queued:
        the server had room this process did not know of."""
        return self.started if self.started is not None else self.sent


class _Occupancy:
    """This process's requests in flight to one server, and its queued ones in the order they were sent."""

    def __init__(self):
        self.lock = threading.Lock()
        self.in_flight = 0
        self.waiting: deque[Ticket] = deque()

    def sent(self, slots: int) -> Ticket:
        with self.lock:
            ticket = Ticket(queued=self.in_flight >= slots)
            self.in_flight += 1
            if ticket.queued:
                self.waiting.append(ticket)
            return ticket

    def ended(self, ticket: Ticket) -> None:
        with self.lock:
            self.in_flight -= 1
            if ticket.started is None:  # ended without a request ahead ending: never waited on one
                self.waiting.remove(ticket)
                ticket.started = ticket.sent
            if self.waiting:
                self.waiting.popleft().started = time.monotonic()


_OCCUPANCY: dict[Path, _Occupancy] = {}


class ServerSlots:
    """`slots` leases for the server at `url`, shared by every process that uses the same folder; `queue` more let
    that many requests wait in the server's own queue, so a slot never idles between one request's end and the
    next one's arrival (the chat-only kinds: their requests are short, and the client's turn-around is a tenth of
    them). Agent sessions take none: a session queued at the server would spend its time limit waiting."""

    def __init__(self, url: str, slots: int, root: Path | None = None, queue: int = 0):
        if slots < 1:
            raise ValueError(f"server slots must be at least 1, got {slots}")
        if queue < 0:
            raise ValueError(f"a server queue cannot be negative, got {queue}")
        self.url, self.slots, self.queue = url, slots, queue
        self.folder = (root or default_root()) / server_key(url)
        with _RELEASED_LOCK:
            self._occupancy = _OCCUPANCY.setdefault(self.folder, _Occupancy())

    @contextlib.contextmanager
    def request(self) -> Iterator[tuple[Ticket, float]]:
        """Hold a lease (a slot, or a place in the server's queue) for one request: yields its ticket and the seconds
        waited for the lease."""
        with self.lease() as (_i, waited):
            ticket = self._occupancy.sent(self.slots)
            try:
                yield ticket, waited
            finally:
                self._occupancy.ended(ticket)

    @contextlib.contextmanager
    def lease(self) -> Iterator[tuple[int, float]]:
        """Wait for a free slot and hold it for the block: yields (slot index, seconds waited)."""
        self._make_folder()
        released = _released(self.folder)
        start = time.monotonic()
        while True:
            for i in range(self.slots + self.queue):
                fd = os.open(self.folder / f"slot-{i}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                try:
                    yield i, time.monotonic() - start
                finally:
                    os.close(fd)  # closing the only descriptor releases the lock
                    with released:
                        released.notify_all()
                return
            with released:
                released.wait(POLL_S)

    def _make_folder(self) -> None:
        # In a shared /tmp another user could have made the folder first (or a link in its place) and so hold
        # or redirect our slots: use it only when it is a real folder of our own.
        root = self.folder.parent
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(root)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise RuntimeError(f"{root} is not a folder of this user: remove it or set KBENCH_SLOTS_DIR elsewhere")
        self.folder.mkdir(mode=0o700, exist_ok=True)

    def busy(self) -> int:
        """How many slots are held right now (for progress lines and tests)."""
        held = 0
        for i in range(self.slots + self.queue):
            path = self.folder / f"slot-{i}.lock"
            if not path.exists():
                continue
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held += 1
            finally:
                os.close(fd)
        return held


@contextlib.contextmanager
def session_slot(slots: ServerSlots | None, events: EventLog):
    """Hold one of the server's slots for an agent session; a long wait is written to the session's events."""
    if slots is None:
        yield
        return
    with slots.lease() as (slot, waited):
        if waited >= 1.0:
            events.write({"type": "slot_wait", "slot": slot, "seconds": round(waited, 2)})
        yield


@contextlib.contextmanager
def request_slot(slots: ServerSlots | None, events: EventLog) -> Iterator[Ticket | None]:
    """Hold a lease for one request of a chat-only kind: yields its ticket (None without a slot limit)."""
    if slots is None:
        yield None
        return
    with slots.request() as (ticket, waited):
        if waited >= 1.0:
            events.write({"type": "slot_wait", "seconds": round(waited, 2)})
        yield ticket
