"""What one agent session leaves behind: counts every result.json is built from, and the event log."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sandbox.judge.parse import MAX_DEPTH, Refused, bounded_json

EVENT_DEPTH = 2 * MAX_DEPTH  # an agent's event wraps the model's message, its content and a call in levels of its own
EVENT_BYTES = 64 << 20  # as much as one pi session may print in all (pi.py caps its output there)


@dataclass
class SessionStats:
    turns: int = 0  # assistant replies
    input_tokens: int = 0  # whole prompt per reply, cached part included
    output_tokens: int = 0
    cutoffs: int = 0  # replies stopped by the output cap (finish_reason length)
    tool_calls: int = 0  # valid calls that were executed
    tool_errors: int = 0  # executed calls that returned an error
    tool_format_errors: int = 0  # replies that tried to call a tool but the call was not valid
    native_calls: int = 0
    text_calls: int = 0  # calls parsed from the reply text (fenced JSON or <tool_call> tags)
    final_message: str = ""
    stop_reason: str = ""  # stop | length | error | timeout | max_turns | killed
    infra_error: str | None = None  # server unreachable or broken reply: the task goes back in the queue
    server_error: str | None = None  # the server refused the request (4xx): recorded, not requeued
    duration_s: float = 0.0
    kills: int = 0
    outside_writes: list[str] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)  # each model request as the wire saw it (agents/wire.py)
    # whether any reply showed reasoning (shows_reasoning); None while no reply was read, so unknown
    reasoned: bool | None = None

    def note_reply(self, reasoned: bool) -> None:
        """One more reply read: the session reasoned once any of its replies showed it."""
        self.reasoned = bool(self.reasoned) or reasoned

    def add(self, other: SessionStats) -> None:
        """Fold a later session (the next prompt of a chain) into this one."""
        for name in ("turns", "input_tokens", "output_tokens", "cutoffs", "tool_calls", "tool_errors",
                     "tool_format_errors", "native_calls", "text_calls", "kills"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.duration_s += other.duration_s
        self.outside_writes += other.outside_writes
        self.requests += other.requests
        self.final_message = other.final_message
        self.stop_reason = other.stop_reason
        self.infra_error = other.infra_error
        self.server_error = self.server_error or other.server_error
        if other.reasoned is not None:
            self.note_reply(other.reasoned)

    def to_dict(self) -> dict:
        return asdict(self)


def shows_reasoning(content: str | None, reasoning: str | None, usage: dict | None) -> bool:
    """Whether one reply shows that the model reasoned: text in the server's reasoning_content, reasoning tokens
    counted in its usage, or a think block left in the reply's text (a server that does not split reasoning out
    passes it there, and the reply would otherwise read as no reasoning at all)."""
    details = (usage or {}).get("completion_tokens_details") or {}
    return bool((reasoning or "").strip() or (details.get("reasoning_tokens") or 0) > 0
                or "</think>" in (content or ""))


def json_safe(obj):
    """The same data with every string valid UTF-8: a file name that is not (the agent can make one with a single
    `touch`) arrives as a lone surrogate and would make the record unwritable. It becomes a visible \\x escape."""
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
            return obj
        except UnicodeEncodeError:
            return obj.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") \
                if _only_escapes(obj) else obj.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(obj, dict):
        return {json_safe(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def _only_escapes(s: str) -> bool:
    """Surrogates from os.fsdecode (U+DC80..U+DCFF) only: they map back to the original bytes."""
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in s)


class EventLog:
    """Appends JSON events (one per line) to events.jsonl, each stamped with the session index and time."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.session = 0
        self._lock = threading.Lock()

    def write(self, event: dict) -> None:
        line = json.dumps(json_safe({"t": round(time.time(), 3), "session": self.session, **event}), ensure_ascii=False,
                          default=str)
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def parse_event(line: str, max_depth: int = EVENT_DEPTH) -> dict | None:
    """One line of an event stream as its JSON object, or None: a line that is not one, or that nests past
    `max_depth` (an agent's event carrying the model's call arguments thousands of brackets deep). Read with
    bounded depth (judging rule 4), so such a line is the caller's to keep as text, never a RecursionError."""
    try:
        ev = bounded_json(line, max_depth=max_depth, max_bytes=EVENT_BYTES)
    except Refused:
        return None
    return ev if isinstance(ev, dict) else None


def read_events(path: Path):
    """The events of an events.jsonl, in order; lines that are not JSON objects are skipped."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            ev = parse_event(line, max_depth=2 * EVENT_DEPTH)  # our lines wrap an agent's event in one more level
            if ev is not None:
                yield ev
