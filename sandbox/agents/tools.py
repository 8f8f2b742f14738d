"""The four tools of the builtin agent (the same names and arguments as pi's): the file tools run in the root
harness, confined to the work folder and bounded in time and size (see confined.py); bash runs in the sandbox."""

from __future__ import annotations

import math
import os
import shlex
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.agents.confined import OutsideFolder, ToolError, WorkFolder, read_all, read_window, write_all
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import MB, Limits
from sandbox.isolation.session import run_session

MAX_RESULT_CHARS = 30_000
READ_CAP_BYTES = MAX_RESULT_CHARS  # of a file per read call: the bash tool's output cap, about 8k tokens
EDIT_MAX_BYTES = 16 * MB  # edit holds the file twice in the root process; bigger files are bash's (sed) work
FILE_TOOL_S = 30.0  # one read, write or edit call; a file is at most Limits.fsize_bytes, read in about a second

TOOL_SCHEMAS = [
    {"type": "function", "function": {
        "name": "read",
        "description": f"Read a text file in the working folder; one call returns at most {READ_CAP_BYTES} "
        "bytes (read on with offset).",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string", "description": "File path, relative to the working folder"},
            "offset": {"type": "number", "description": "First line to read (1-based)"},
            "limit": {"type": "number", "description": "How many lines to read"}},
            "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "write", "description": "Create or overwrite a file with the given content.",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string", "description": "File path, relative to the working folder"},
            "content": {"type": "string", "description": "The whole new content of the file"}},
            "required": ["path", "content"]}}},
    {"type": "function", "function": {
        "name": "edit", "description": "Replace exact text in a file; each oldText must occur exactly once.",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": {
                "oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"]}}},
            "required": ["path", "edits"]}}},
    {"type": "function", "function": {
        "name": "bash", "description": "Run a bash command in the working folder; returns its output and exit code.",
        "parameters": {"type": "object", "properties": {
            "command": {"type": "string"},
            "timeout": {"type": "number", "description": "Seconds before the command is stopped"}},
            "required": ["command"]}}},
]
_REQUIRED = {t["function"]["name"]: t["function"]["parameters"] for t in TOOL_SCHEMAS}


def check_call(name: str | None, args: object) -> str | None:
    """Why a call is not a valid call of one of our tools, or None when it is."""
    if name not in _REQUIRED:
        return f"unknown tool {name!r}; the tools are read, write, edit, bash"
    if not isinstance(args, dict):
        return f"arguments of {name} must be a JSON object"
    schema = _REQUIRED[name]
    for key in schema["required"]:
        if key not in args:
            return f"{name} needs the argument {key!r}"
    for key, value in args.items():
        spec = schema["properties"].get(key)
        if spec is None:
            return f"{name} has no argument {key!r}"
        want = spec["type"]
        ok = {"string": isinstance(value, str),
              "number": isinstance(value, (int, float)) and not isinstance(value, bool),
              "array": isinstance(value, list)}[want]
        if not ok:
            return f"argument {key!r} of {name} must be a {want}"
    if name == "edit":
        for e in args["edits"]:
            if not (isinstance(e, dict) and isinstance(e.get("oldText"), str) and isinstance(e.get("newText"), str)):
                return "each edit needs oldText and newText strings"
    return None


def _encode(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # JSON can carry lone surrogates, which no UTF-8 file can hold
        raise ToolError(f"{what} is not valid Unicode (it holds a lone surrogate at {exc.start})") from None


def _line_number(value: float | None, what: str) -> int | None:
    if value is None:
        return None
    if not math.isfinite(value):  # Python's json reads Infinity and NaN
        raise ToolError(f"{what} must be a finite number")
    return int(value)


def _noted(text: str, note: str) -> str:
    sep = "" if text.endswith("\n") else "\n"
    return f"{text}{sep}{note}"


def _within(deadline: float, name: str, fn, kwargs: dict) -> str:
    """fn(deadline=..., **kwargs) in a worker thread, given up at the deadline. The file tools use non-blocking
    opens and check the deadline between chunks, so this should never fire; it keeps the session's --timeout
    even if some file operation blocks in a way they did not foresee."""
    box: dict = {}

    def work() -> None:
        try:
            box["result"] = fn(deadline=deadline, **kwargs)
        except BaseException as exc:  # handed to the caller's thread, raised there
            box["error"] = exc

    worker = threading.Thread(target=work, name=f"tool-{name}", daemon=True)
    worker.start()
    worker.join(max(deadline - time.monotonic(), 0.0))
    if worker.is_alive():
        raise ToolError(f"the {name} tool did not finish in time; the harness stopped waiting for it")
    if "error" in box:
        raise box["error"]
    return box["result"]


@dataclass
class ToolBox:
    """Executes calls for one session: file tools in-process (confined, bounded), bash inside the sandbox."""

    workdir: Path
    cfg: IsolationConfig
    limits: Limits
    deadline: float  # time.monotonic() when the session must end
    log_path: Path | None = None
    kills: int = 0
    outside_writes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._folder = WorkFolder(self.workdir)

    def _owned(self, fd: int) -> None:
        # Files we write as root must stay writable by the sandbox user the bash tool runs as.
        if self.cfg.drops_uid:
            os.fchown(fd, self.cfg.run_as_uid, self.cfg.run_as_uid)

    def _refused_outside(self, raw: str, open_it):
        try:
            return open_it()
        except OutsideFolder:
            self.outside_writes.append(f"refused:{raw}")
            raise

    def run(self, name: str, args: dict) -> str:
        if name == "bash":
            return self._bash(**args)
        deadline = min(self.deadline, time.monotonic() + FILE_TOOL_S)
        if deadline - time.monotonic() <= 0:
            raise ToolError("the session has no time left")
        return _within(deadline, name, getattr(self, f"_{name}"), args)

    def _read(self, path: str, offset: float | None = None, limit: float | None = None, *, deadline: float) -> str:
        first = max(_line_number(offset, "offset") or 1, 1)
        lim = _line_number(limit, "limit")
        lim = lim if lim and lim > 0 else None
        fd, st = self._folder.open_existing(path, os.O_RDONLY, for_write=False)
        try:
            w = read_window(fd, first, lim, READ_CAP_BYTES, deadline)
        finally:
            os.close(fd)
        if not w.data:
            return f"({path} is empty)" if w.lines_in_file == 0 else \
                f"(no lines there: {path} has {w.lines_in_file} lines)"
        text = w.data.decode("utf-8", errors="replace")
        if w.cut:
            rest = w.start_byte + len(w.data) + 1  # tail -c +N counts from 1
            return _noted(text, f"[line {w.first} of {path} is longer than {READ_CAP_BYTES} bytes: this is its "
                                f"beginning. The read tool shows at most {READ_CAP_BYTES} bytes of one line; "
                                f"for the rest use bash, e.g. tail -c +{rest} {shlex.quote(path)} "
                                f"| head -c {READ_CAP_BYTES}]")
        if not w.more:
            return text
        if lim is not None and w.last - w.first + 1 == lim:
            return _noted(text, f"[more lines follow: continue with offset={w.last + 1}]")
        return _noted(text, f"[truncated: showed lines {w.first}-{w.last} of {path} ({st.st_size} bytes); one read "
                            f"returns at most {READ_CAP_BYTES} bytes: continue with offset={w.last + 1}]")

    def _write(self, path: str, content: str, *, deadline: float) -> str:
        data = _encode(content, "content")
        if len(data) > self.limits.fsize_bytes:
            raise ToolError(f"content is {len(data)} bytes; no file may be larger than {self.limits.fsize_bytes} bytes")
        fd = self._refused_outside(path, lambda: self._folder.open_for_write(path, self._owned))
        try:
            write_all(fd, data, deadline)
            self._owned(fd)
        finally:
            os.close(fd)
        return f"wrote {len(data)} bytes to {path}"

    def _edit(self, path: str, edits: list, *, deadline: float) -> str:
        fd, st = self._refused_outside(path, lambda: self._folder.open_existing(path, os.O_RDWR, for_write=True))
        try:
            original = read_all(fd, EDIT_MAX_BYTES, deadline) if st.st_size <= EDIT_MAX_BYTES else None
            if original is None:
                raise ToolError(f"{path} is larger than {EDIT_MAX_BYTES} bytes, the most the edit tool works on "
                                "(use bash, e.g. sed, on bigger files)")
            # Bytes, not text: bytes that are not UTF-8 elsewhere in the file come back unchanged.
            text = original
            for e in edits:
                old, new = _encode(e["oldText"], "oldText"), _encode(e["newText"], "newText")
                count = original.count(old)
                if count != 1:
                    raise ToolError(f"oldText must occur exactly once in {path}, found {count} times: "
                                    f"{e['oldText'][:80]!r}")
                text = text.replace(old, new, 1)
            if len(text) > self.limits.fsize_bytes:
                raise ToolError(f"the edited file would be {len(text)} bytes; no file may be larger than "
                                f"{self.limits.fsize_bytes} bytes")
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            write_all(fd, text, deadline)
        finally:
            os.close(fd)
        return f"applied {len(edits)} edit(s) to {path}"

    def _bash(self, command: str, timeout: float | None = None) -> str:
        left = self.deadline - time.monotonic()
        if left <= 1:
            raise ToolError("the session has no time left")
        limit = min(left, float(timeout)) if timeout else left
        # The builtin agent talks to the model from outside; its commands need no network, and without one they
        # cannot reach the host's loopback services (model server, Dagster UI) or another session.
        res = run_session(["bash", "-c", command], self.workdir, limits=self.limits.with_(timeout_s=limit,
                          max_output_bytes=0), cfg=self.cfg, log_path=self.log_path, label="bash", network=False)
        self.kills += res.kill_count
        self.outside_writes += res.outside_writes
        out = res.tail[-MAX_RESULT_CHARS:]
        status = "timed out" if res.timed_out else f"exit code {res.returncode}"
        if res.session_killed and not res.timed_out:
            status += f" (killed by the {res.session_killed} watchdog)"
        text = f"{out}\n[{status}]" if out else f"[{status}]"
        if res.returncode != 0 or res.timed_out:
            raise ToolError(text)  # like pi: a failed command is a tool error, its output still goes back
        return text
