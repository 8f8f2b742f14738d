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

import orjson

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
            e = json_value(line)
        except ValueError:
            continue
        if isinstance(e, dict):
            out.append(e)
    return out


def json_value(data: bytes | str):
    """The JSON value of `data`; ValueError when it is none. What only the json module reads (NaN, an escaped lone
    surrogate: text json.dumps wrote) goes through it."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


# A strike of 1,500 cached trials writes some 6,000 event and ledger lines and reads them back: orjson makes each
# several times faster than the json module. Dates and dataclasses go through `str`, as json.dumps(default=str)
# wrote them, so a record reads the same whichever wrote it.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def json_bytes(obj) -> bytes:
    """obj as one line of UTF-8 JSON. A string that is not valid UTF-8 (a lone surrogate from a file name) sends the
    whole object through json_safe, which escapes it visibly; a value orjson cannot hold (an integer over 64 bits)
    goes through the json module."""
    try:
        return orjson.dumps(obj, default=str, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(json_safe(obj), ensure_ascii=False, default=str).encode("utf-8")
