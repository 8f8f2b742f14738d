"""Files of whole JSON lines that several threads and processes append to: the run ledger and the reply cache.

A line is written with one write under a thread lock and an advisory file lock. A kill mid-write leaves at most one
torn last line: readers skip it, and the next append starts a new line first so it never glues onto the fragment.
A write that fails (a full disk) is cut back off, so the next line never follows half of one.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path

from sandbox.agents.record import json_safe

_LOCK = threading.Lock()


def append_line(path: Path, line: bytes) -> tuple[int, int]:
    """`line` (one JSON text ending in a newline) appended whole to `path`; the file's size before and after."""
    with _LOCK:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            end = os.lseek(fd, 0, os.SEEK_END)
            torn = end > 0 and os.pread(fd, 1, end - 1) != b"\n"
            try:
                view = memoryview(b"\n" + line if torn else line)
                while view:
                    view = view[os.write(fd, view):]
            except OSError:
                os.ftruncate(fd, end)
                raise
            return end, end + len(line) + torn
        finally:
            os.close(fd)  # closing releases the file lock


def parse_lines(data: bytes) -> list[dict]:
    """The JSON objects of `data`, one a line, in order; a torn or unreadable line is skipped."""
    out = []
    for line in data.split(b"\n"):
        if not line:
            continue
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict):
            out.append(e)
    return out


def safe_json(obj) -> str:
    """obj as JSON text that encodes to UTF-8: the common case is encoded once; a string that cannot be (a lone
    surrogate from a file name) sends the whole object through json_safe, which escapes it visibly."""
    text = json.dumps(obj, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(json_safe(obj), ensure_ascii=False, default=str)
    return text
