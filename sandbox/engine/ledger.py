"""The run ledger: how the chat-only kinds (tool-use trials, text jobs, capability items, the breakdown) keep their
attempts. One JSON line per finished attempt in runs/RUNID/ledger.jsonl, in place of a folder per attempt.

Their attempts are small and many (a strike is 1,500 trials answered in milliseconds each once its replies are
cached), and a folder of four files per attempt cost more than the attempt itself. A line holds what the folder
held: the result, the events, the grader's output and the files the kind left (the replies). Lines are appended
whole under a lock (an advisory file lock too, for a second process on the same run), so a kill leaves at most one
torn last line, which readers skip: that attempt has no result and the rerun redoes it. A write that fails (a full
disk) is cut back off, so the next line never follows half of one.

Entry types: `result` (a finished attempt), `requeue` (a try given back on server trouble, with its events, kept as
evidence and counted across reruns), `regrading` (a later verdict on the same final files; readers apply the
latest, as with regrading.json in a folder record).
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import threading
import time
from collections import Counter
from pathlib import Path

from sandbox.agents.record import EventLog, json_safe
from sandbox.isolation.trees import Entry, Walk

LEDGER = "ledger.jsonl"
MAX_KEPT_FILE_CHARS = 1_000_000  # of one file the kind left; the replies are far smaller
MAX_KEPT_FILES = 50
MAX_KEPT_DEPTH = 8
_READ: dict[Path, tuple[tuple, list[dict]]] = {}  # ledger path -> (inode, size, mtime), its entries
_READ_LOCK = threading.Lock()


class RunLedger:
    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LEDGER
        self._lock = threading.Lock()

    def append(self, entry: dict) -> None:
        """`entry` must be json_safe already (the events are made so as they are written; see LedgerBox)."""
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                end = os.lseek(fd, 0, os.SEEK_END)
                # a kill mid-write left a torn line: end it, so this entry is a line of its own
                torn = end > 0 and os.pread(fd, 1, end - 1) != b"\n"
                try:
                    view = memoryview(b"\n" + line if torn else line)
                    while view:
                        view = view[os.write(fd, view):]
                except OSError:
                    os.ftruncate(fd, end)  # never leave half a line for the next one to follow
                    raise
            finally:
                os.close(fd)  # closing releases the lock

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
            seen = _READ.get(self.path)
        if seen is not None and seen[0] == stamp:
            return seen[1]
        with open(self.path, "rb") as fh:
            data = fh.read(st.st_size)
        out = self._parse(data)
        with _READ_LOCK:
            _READ[self.path] = (stamp, out)
        return out

    @staticmethod
    def _parse(data: bytes) -> list[dict]:
        out = []
        for line in data.split(b"\n"):
            if not line:
                continue
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if isinstance(e, dict) and isinstance(e.get("key"), str):
                out.append(e)
        return out

    def done_keys(self) -> set[str]:
        return {e["key"] for e in self.entries() if e.get("type") == "result"}

    def requeue_counts(self) -> Counter:
        return Counter(e["key"] for e in self.entries() if e.get("type") == "requeue")


class LedgerBox:
    """One try of one attempt, kept for the ledger: events in memory, the grader's output in a scratch file beside
    the attempt's work folder, the final files read in before the folder goes; written as one line at the end."""

    def __init__(self, ledger: RunLedger, key: str, tests_path: Path, requeues: Counter):
        self.ledger, self.key, self.tests_path, self._requeues = ledger, key, tests_path, requeues
        self.events = EventList()
        self.files: dict[str, str] = {}
        self._tests = ""

    def open(self) -> None:
        self.events = EventList()
        self.files, self._tests = {}, ""
        self.tests_path.unlink(missing_ok=True)

    def ensure(self) -> None:
        """Nothing to make: the events are in memory."""

    def write_tests(self, text: str) -> None:
        self._tests = text

    def keep_files(self, workdir: Path) -> list[str]:
        self.files, left_out = kept_files(workdir)
        return left_out

    def requeues(self) -> int:
        return self._requeues[self.key]

    def requeue(self) -> None:
        self.ledger.append({"type": "requeue", "key": self.key, "events": self.events.kept})  # json_safe already
        self._requeues[self.key] += 1
        self.tests_path.unlink(missing_ok=True)

    def finish(self, result: dict) -> None:
        try:
            tests = self.tests_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            tests = self._tests
        self.ledger.append({"type": "result", "key": json_safe(self.key), "result": json_safe(result),
                            "events": self.events.kept, "tests": json_safe(tests), "files": json_safe(self.files)})
        self.tests_path.unlink(missing_ok=True)


class EventList(EventLog):
    """An attempt's events kept in memory until its ledger line is written."""

    def __init__(self):
        super().__init__(Path(os.devnull))
        self.kept: list[dict] = []

    def write(self, event: dict) -> None:
        with self._lock:
            self.kept.append(json_safe({"t": round(time.time(), 3), "session": self.session, **event}))


def kept_files(workdir: Path) -> tuple[dict[str, str], list[str]]:
    """The files a chat-only kind left in its scratch folder (its replies, what a shell trial's commands made), as
    text; what is not kept (links, binary, too big, too many) is named in the second list. Read as the record's
    copy is (sandbox/engine/records.py): no link followed, no blocking open, the walk bounded."""
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
