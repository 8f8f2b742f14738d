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


class ServerSlots:
    """`slots` leases for the server at `url`, shared by every process that uses the same folder."""

    def __init__(self, url: str, slots: int, root: Path | None = None):
        if slots < 1:
            raise ValueError(f"server slots must be at least 1, got {slots}")
        self.url, self.slots = url, slots
        self.folder = (root or default_root()) / server_key(url)

    @contextlib.contextmanager
    def lease(self) -> Iterator[tuple[int, float]]:
        """Wait for a free slot and hold it for the block: yields (slot index, seconds waited)."""
        self._make_folder()
        released = _released(self.folder)
        start = time.monotonic()
        while True:
            for i in range(self.slots):
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
        for i in range(self.slots):
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
