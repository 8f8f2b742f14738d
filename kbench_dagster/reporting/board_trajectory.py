"""One attempt's evidence, readable: events.jsonl as a conversation (both agents' formats), tests.txt, final files.

Used by `kbench triage --task` (as text) and by the board's trajectory pages (as HTML).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from sandbox.agents.record import read_events
from sandbox.engine.attempt_records import AttemptRecord, FolderRecord
from sandbox.isolation.trees import Walk

MAX_FILE_CHARS = 20_000
MAX_FILES = 50
MAX_LISTED = 20_000  # entries looked at to choose the first MAX_FILES


def _pi_turns(ev: dict, session: int) -> list[dict]:
    if ev.get("type") != "message_end":
        return []
    msg = ev.get("message") or {}
    role = msg.get("role")
    out: list[dict] = []
    if role == "assistant":
        texts, thinking = [], []
        calls = []
        for part in msg.get("content") or []:
            kind = part.get("type")
            if kind == "text":
                texts.append(part.get("text", ""))
            elif kind == "thinking":
                thinking.append(part.get("thinking", ""))
            elif kind == "toolCall":
                calls.append({"kind": "tool_call", "session": session, "name": part.get("name"),
                              "args": part.get("arguments"), "form": "native"})
        if msg.get("stopReason") == "error" and msg.get("errorMessage"):
            texts.append(f"[error: {msg['errorMessage']}]")
        out.append({"kind": "assistant", "session": session, "text": "\n".join(texts),
                    "reasoning": "\n".join(thinking) or None, "stop": msg.get("stopReason")})
        out += calls
    elif role == "toolResult":
        text = "\n".join(p.get("text", "") for p in msg.get("content") or [] if p.get("type") == "text")
        out.append({"kind": "tool_result", "session": session, "name": msg.get("toolName"), "text": text,
                    "is_error": bool(msg.get("isError"))})
    return out


def _content_text(content) -> str:
    if isinstance(content, list):  # content parts
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def conversation(events: Path | list[dict]) -> list[dict]:
    """Turns in order: prompt, assistant (text, reasoning), tool_call (name, args), tool_result (text, is_error),
    error and note. `events`: an events.jsonl, or the events themselves (a ledger record's)."""
    turns: list[dict] = []
    for ev in read_events(events) if isinstance(events, Path) else events:
        kind, session = ev.get("type"), ev.get("session", 0)
        if kind == "prompt":
            turns.append({"kind": "prompt", "session": session, "text": ev.get("text", "")})
        elif kind == "request":  # a chat-only kind's request: what it asked last
            last = (ev.get("messages") or [{}])[-1]
            turns.append({"kind": "prompt", "session": session, "text": _content_text(last.get("content"))})
        elif kind == "reply":
            turns.append({"kind": "assistant", "session": session, "text": ev.get("content") or "",
                          "reasoning": ev.get("reasoning"), "stop": ev.get("finish")})
            turns += [{"kind": "tool_call", "session": session, "name": c.get("name"), "args": c.get("arguments"),
                       "form": "native"} for c in ev.get("tool_calls") or []]
        elif kind == "assistant":
            turns.append({"kind": "assistant", "session": session, "text": ev.get("content") or "",
                          "reasoning": ev.get("reasoning"), "stop": ev.get("finish_reason")})
        elif kind == "tool_call":
            turns.append({"kind": "tool_call", "session": session, "name": ev.get("name"),
                          "args": ev.get("args"), "form": ev.get("form")})
        elif kind == "tool_result":
            turns.append({"kind": "tool_result", "session": session, "name": ev.get("name"),
                          "text": ev.get("output", ""), "is_error": bool(ev.get("is_error"))})
        elif kind == "pi":
            turns += _pi_turns(ev.get("event") or {}, session)
        elif kind in ("tool_format_error", "error", "server_faults"):
            turns.append({"kind": "error", "session": session,
                          "text": f"{kind}: {ev.get('message') or json.dumps(ev.get('faults', ev))[:500]}"})
        elif kind in ("timeout", "requeue", "pi_exit", "pi_output"):
            detail = ev.get("message") or ev.get("reason") or ev.get("text") or (
                f"pi exited {ev.get('returncode')}" + (" (timed out)" if ev.get("timed_out") else "")
                if kind == "pi_exit" else "")
            turns.append({"kind": "note", "session": session, "text": f"{kind}: {detail}"})
        elif kind == "slot_wait":
            turns.append({"kind": "note", "session": session,
                          "text": f"waited {ev.get('seconds')} s for a server slot before this session"})
    return turns


def final_files(workdir: Path) -> list[dict]:
    """The agent's final files: path, size and text (None for binary; cut at MAX_FILE_CHARS). Links are listed
    with their target and never followed: we read the records as the host's user, and a link the agent left
    (to /proc/self/environ, a hidden test, a key file) must not put that file's contents on a page."""
    workdir = Path(workdir)
    if not workdir.is_dir():
        return []
    # no recursion and no link followed, whatever the shape of the tree (a record's copy is bounded already)
    entries = [workdir / e.rel for e in Walk(workdir, max_entries=MAX_LISTED) if e.kind != "dir"]
    out = []
    for f in sorted(entries)[:MAX_FILES]:
        rel = os.fsencode(f.relative_to(workdir)).decode("utf-8", "backslashreplace")
        if f.is_symlink():
            target = os.fsencode(os.readlink(f)).decode("utf-8", "backslashreplace")
            out.append({"path": rel, "size": None, "text": None, "link": target})
            continue
        if not f.is_file():
            continue
        size = f.stat().st_size
        try:
            text = f.read_bytes()[: MAX_FILE_CHARS * 4].decode("utf-8")[:MAX_FILE_CHARS]
        except UnicodeDecodeError:
            text = None
        out.append({"path": rel, "size": size, "text": text})
    return out


def read_text(path: Path, limit: int = 200_000) -> str:
    p = Path(path)
    if not p.exists():
        return ""
    with open(p, encoding="utf-8", errors="replace") as fh:
        return fh.read(limit)


def args_text(args) -> str:
    if isinstance(args, dict):
        parts = []
        for k, v in args.items():
            v = v if isinstance(v, str) else json.dumps(v)
            parts.append(f"{k}:\n{v}" if "\n" in v else f"{k}: {v}")
        return "\n".join(parts)
    return json.dumps(args)


def conversation_text(turns: list[dict], width: int = 4000) -> str:
    lines = []
    session = None
    for t in turns:
        if t["session"] != session:
            session = t["session"]
            lines.append(f"=== session {session}")
        if t["kind"] == "prompt":
            lines.append(f"[user]\n{t['text'].rstrip()}")
        elif t["kind"] == "assistant":
            if t.get("reasoning"):
                lines.append(f"[assistant thinking]\n{t['reasoning'][:width].rstrip()}")
            lines.append(f"[assistant]\n{(t['text'] or '(no text)')[:width].rstrip()}")
        elif t["kind"] == "tool_call":
            lines.append(f"[tool call {t['name']}{' (' + t['form'] + ')' if t.get('form') else ''}]\n"
                         f"{args_text(t['args'])[:width].rstrip()}")
        elif t["kind"] == "tool_result":
            lines.append(f"[tool result {t['name']}{' ERROR' if t['is_error'] else ''}]\n{t['text'][:width].rstrip()}")
        else:
            lines.append(f"[{t['kind']}] {t['text']}")
    return "\n".join(lines)


def record_files(record: AttemptRecord | None) -> list[dict]:
    """final_files of any record: a folder's workdir/, or the files a ledger line keeps."""
    if record is None:
        return []
    if isinstance(record, FolderRecord):
        return final_files(record.folder / "workdir")
    return [{"path": rel, "size": len(text.encode("utf-8")), "text": text[:MAX_FILE_CHARS]}
            for rel, text in sorted(record.files().items())[:MAX_FILES]]
