"""The four tools of the builtin agent (the same names and arguments as pi's), confined to the work folder."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.isolation import IsolationConfig
from sandbox.limits import Limits
from sandbox.runner import run_session

MAX_RESULT_CHARS = 30_000

TOOL_SCHEMAS = [
    {"type": "function", "function": {
        "name": "read", "description": "Read a text file in the working folder.",
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
        ok = {"string": isinstance(value, str), "number": isinstance(value, (int, float)) and not isinstance(value, bool),
              "array": isinstance(value, list)}[want]
        if not ok:
            return f"argument {key!r} of {name} must be a {want}"
    if name == "edit":
        for e in args["edits"]:
            if not (isinstance(e, dict) and isinstance(e.get("oldText"), str) and isinstance(e.get("newText"), str)):
                return "each edit needs oldText and newText strings"
    return None


class ToolError(Exception):
    pass


@dataclass
class ToolBox:
    """Executes calls for one session: file tools in-process (paths confined), bash inside the sandbox."""

    workdir: Path
    cfg: IsolationConfig
    limits: Limits
    deadline: float  # time.monotonic() when the session must end
    log_path: Path | None = None
    kills: int = 0
    outside_writes: list[str] = field(default_factory=list)

    def _resolve(self, raw: str, for_write: bool) -> Path:
        root = self.workdir.resolve()
        p = Path(raw)
        target = (p if p.is_absolute() else root / p).resolve()
        if target != root and root not in target.parents:
            if for_write:
                self.outside_writes.append(f"refused:{raw}")
            raise ToolError(f"path {raw!r} is outside the working folder")
        return target

    def _owned(self, path: Path) -> None:
        # Files we write as root must stay writable by the sandbox user the bash tool runs as.
        if self.cfg.drops_uid:
            os.chown(path, self.cfg.run_as_uid, self.cfg.run_as_uid)

    def run(self, name: str, args: dict) -> str:
        return getattr(self, f"_{name}")(**args)

    def _read(self, path: str, offset: float | None = None, limit: float | None = None) -> str:
        target = self._resolve(path, False)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        lines = target.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        start = max(int(offset or 1), 1) - 1
        end = start + int(limit) if limit else len(lines)
        if start >= len(lines) and lines:
            return f"(no lines there: {path} has {len(lines)} lines)"
        return "".join(lines[start:end])[:MAX_RESULT_CHARS] or f"({path} is empty)"

    def _write(self, path: str, content: str) -> str:
        target = self._resolve(path, True)
        created = []
        parent = target.parent
        while not parent.exists():
            created.append(parent)
            parent = parent.parent
        target.parent.mkdir(parents=True, exist_ok=True)
        for d in created:
            self._owned(d)
        target.write_text(content, encoding="utf-8")
        self._owned(target)
        return f"wrote {len(content.encode())} bytes to {path}"

    def _edit(self, path: str, edits: list) -> str:
        target = self._resolve(path, True)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        original = target.read_text(encoding="utf-8", errors="replace")
        text = original
        for e in edits:
            count = original.count(e["oldText"])
            if count != 1:
                raise ToolError(f"oldText must occur exactly once in {path}, found {count} times: {e['oldText'][:80]!r}")
            text = text.replace(e["oldText"], e["newText"], 1)
        target.write_text(text, encoding="utf-8")
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
        self.kills += sum(1 for k in res.kills if k.pid)
        self.outside_writes += res.outside_writes
        out = res.tail[-MAX_RESULT_CHARS:]
        status = "timed out" if res.timed_out else f"exit code {res.returncode}"
        if res.session_killed and not res.timed_out:
            status += f" (killed by the {res.session_killed} watchdog)"
        text = f"{out}\n[{status}]" if out else f"[{status}]"
        if res.returncode != 0 or res.timed_out:
            raise ToolError(text)  # like pi: a failed command is a tool error, its output still goes back
        return text
