"""The run ledger: how the chat-only kinds (tool-use trials, text jobs, capability items, the breakdown) keep their
attempts. One JSON line per finished attempt in runs/RUNID/ledger.jsonl, in place of a folder per attempt.

Their attempts are small and many (a strike is 1,500 trials answered in milliseconds each once its replies are
cached), and a folder of four files per attempt cost more than the attempt itself. A line holds what the folder
held: the result, the events, the grader's output and the files the kind kept (the replies). Lines are appended
whole (sandbox/engine/jsonlines.py), so a kill leaves at most one torn last line, which readers skip: that attempt
has no result and the rerun redoes it.

Entry types: `result` (a finished attempt), `requeue` (a try given back on server trouble, with its events, kept as
evidence and counted across reruns), `regrading` (a later verdict on the same final files; readers apply the
latest, as with regrading.json in a folder record).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from sandbox.agents.record import EventLog
from sandbox.engine.jsonlines import append_line, json_bytes, parse_lines
from sandbox.isolation.trees import Entry, Walk

LEDGER = "ledger.jsonl"
MAX_KEPT_FILE_CHARS = 1_000_000  # of one file the kind left; the replies are far smaller
MAX_KEPT_FILES = 50
MAX_KEPT_DEPTH = 8
_READ: dict[Path, tuple[tuple, list[dict]]] = {}  # ledger path -> (inode, size, mtime), its entries; latest last
_READ_KEPT = 8  # ledgers kept read: a long-lived process (the board, Dagster) goes over many runs
_READ_LOCK = threading.Lock()
HELD_LINES = 200  # a replay's lines written together at most (RunLedger.gathered)
HELD_S = 0.25  # nor held longer than this: a replay may still grade in a sandbox (a shell trial not cached)


class RunLedger:
    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LEDGER
        self._held: list[bytes] | None = None  # lines of a replay not written yet (see `gathered`)
        self._held_since = 0.0

    def append(self, entry: dict, events: list[bytes] | None = None) -> None:
        """One entry as one line; `events`, JSON texts made as the events were written (EventList), go in as its
        "events" list without being encoded a second time."""
        line = json_bytes(entry)
        if events is not None:
            line = b"".join((line[:-1], b',"events":[', b",".join(events), b"]}"))
        line += b"\n"
        if self._held is None:
            append_line(self.path, line)
            return
        if not self._held:
            self._held_since = time.monotonic()
        self._held.append(line)
        if len(self._held) >= HELD_LINES or time.monotonic() - self._held_since >= HELD_S:
            self._write_held()

    @contextmanager
    def gathered(self):
        """Appends inside are written a batch at a time (every HELD_LINES lines or HELD_S seconds, and at the end),
        each batch whole lines in one write. For a replay from the reply cache only: a kill loses at most the last
        batch, whose attempts cost nothing to redo, where a write per attempt cost more than the attempt."""
        self._held = []
        try:
            yield self
        finally:
            try:
                self._write_held()
            finally:
                self._held = None

    def _write_held(self) -> None:
        lines, self._held = self._held, []
        if lines:
            append_line(self.path, b"".join(lines))

    def entries(self) -> list[dict]:
        """Every whole entry, in the order written; a torn or unreadable line (a kill mid-write) is skipped. Read
        once per change of the file: a strike's store, figures and resume all read the same ledger. The entries
        are shared: read them, never change them."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return []
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        with _READ_LOCK:
            seen = _READ.pop(self.path, None)
            if seen is not None and seen[0] == stamp:
                _READ[self.path] = seen
                return seen[1]
        with open(self.path, "rb") as fh:
            data = fh.read(st.st_size)
        out = self._parse(data)
        with _READ_LOCK:
            _READ[self.path] = (stamp, out)
            while len(_READ) > _READ_KEPT:
                del _READ[next(iter(_READ))]
        return out

    @staticmethod
    def _parse(data: bytes) -> list[dict]:
        return [e for e in parse_lines(data) if isinstance(e.get("key"), str)]

    def done_keys(self) -> set[str]:
        return {e["key"] for e in self.entries() if e.get("type") == "result"}

    def requeue_counts(self) -> Counter:
        return Counter(e["key"] for e in self.entries() if e.get("type") == "requeue")


class LedgerBox:
    """One try of one attempt, kept for the ledger: its events, the grader's output and the files the kind kept (its
    replies), all in memory, written as one line at the end."""

    def __init__(self, ledger: RunLedger, key: str, requeues: Counter):
        self.ledger, self.key, self._requeues = ledger, key, requeues
        self.open()  # a harness error may come before the scheduler opens the box; opening again starts it afresh

    def open(self) -> None:
        self.events = EventList()
        self.files: dict[str, str] = {}  # what the kind's execute keeps, filled as the replies come
        self._tests = ""

    def ensure(self) -> None:
        """Nothing to make: the events are in memory."""

    def write_tests(self, text: str) -> None:
        self._tests = text

    def keep_kept(self) -> list[str]:
        """The files the kind kept, each as a line holds one; the names of those too big to keep (they are left
        out of the record, as a folder record leaves out what it cannot copy)."""
        left_out = [rel for rel, text in self.files.items()
                    if not isinstance(text, str) or len(text) > MAX_KEPT_FILE_CHARS]
        for rel in left_out:
            del self.files[rel]
        return left_out

    def requeues(self) -> int:
        return self._requeues[self.key]

    def requeue(self) -> None:
        self.ledger.append({"type": "requeue", "key": self.key}, self.events.lines)
        self._requeues[self.key] += 1

    def finish(self, result: dict) -> None:
        self.ledger.append({"type": "result", "key": self.key, "result": result, "tests": self._tests,
                            "files": self.files}, self.events.lines)


class EventList(EventLog):
    """An attempt's events kept in memory, each as its JSON text, until its ledger line is written. Encoded as
    written: a later change to a list an event holds (a conversation that grows) never reaches the record."""

    def __init__(self):  # nothing of EventLog's file: the line is written by the ledger
        self.session = 0
        self._lock = threading.Lock()
        self.lines: list[bytes] = []

    def write(self, event: dict) -> None:
        line = json_bytes({"t": round(time.time(), 3), "session": self.session, **event})
        with self._lock:
            self.lines.append(line)


def kept_files(workdir: Path) -> tuple[dict[str, str], list[str]]:
    """The files a chat-only kind left in its scratch folder (its replies, what a shell trial's commands made), as
    text; what is not kept (links, binary, too big, too many) is named in the second list. Read as the record's
    copy is (sandbox/engine/attempt_folders.py): no link followed, no blocking open, the walk bounded."""
    files: dict[str, str] = {}
    left_out: list[str] = []
    if not Path(workdir).is_dir():
        return files, left_out
    walk = Walk(Path(workdir), max_entries=4 * MAX_KEPT_FILES, max_depth=MAX_KEPT_DEPTH)
    for e in walk:
        if e.kind == "dir":
            continue
        text = _text_of(e) if e.kind == "file" and len(files) < MAX_KEPT_FILES else None
        if text is None:
            left_out.append(e.rel)
        else:
            files[e.rel] = text
    if walk.truncated:
        left_out.insert(0, f"(listing truncated: {walk.truncated}; the rest of the folder was not kept)")
    return files, left_out


def _text_of(e: Entry) -> str | None:
    try:
        fd = os.open(e.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=e.dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(4 * MAX_KEPT_FILE_CHARS + 1)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)
    return text if len(text) <= MAX_KEPT_FILE_CHARS and len(raw) <= 4 * MAX_KEPT_FILE_CHARS else None
