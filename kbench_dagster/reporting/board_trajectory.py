"""One attempt's evidence, readable: events.jsonl as a conversation (both agents' formats), tests.txt, final files.

Used by `kbench triage --task` (as text) and by the board's trajectory pages (as HTML).
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

from sandbox.agents.record import read_events
from sandbox.engine.attempt_reader import AttemptRecord, FolderRecord
from sandbox.isolation.trees import Walk
from sandbox.judge.files import NotReadable, read_agent_file, read_agent_text

MAX_FILE_CHARS = 20_000
MAX_FILES = 50
MAX_LISTED = 20_000  # entries looked at to choose the first MAX_FILES
RECORD_BYTES = 16 << 20  # events.jsonl and tests.txt: a record file is at most 10 MB


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


def final_files(workdir: Path, root: Path | None = None) -> list[dict]:
    """The agent's final files: path, size and text (None for binary; cut at MAX_FILE_CHARS), or a note where the
    board does not show it. Links are listed with their target and never followed: we read the records as the
    host's user, and a link the agent left (to /proc/self/environ, a hidden test, a key file) must not put that
    file's contents on a page. `root` is the folder the reader owns (the runs root; by default the record folder
    holding workdir/): no component from it down to a file may be a link (rule 3 of sandbox/judge)."""
    workdir = Path(workdir)
    root = Path(root) if root is not None else workdir.parent
    below = PurePosixPath(workdir.relative_to(root))
    refused = _through_a_link(root, below)
    if refused is not None:
        return [] if refused == "" else [refused]
    # no recursion and no link followed, whatever the shape of the tree (a record's copy is bounded already)
    entries = sorted((e.rel, e.kind, e.st.st_size) for e in Walk(workdir, max_entries=MAX_LISTED)
                     if e.kind != "dir")
    out = []
    for rel_name, kind, size in entries[:MAX_FILES]:
        rel = os.fsencode(rel_name).decode("utf-8", "backslashreplace")
        if kind == "link":
            target = os.fsencode(os.readlink(workdir / rel_name)).decode("utf-8", "backslashreplace")
            out.append({"path": rel, "size": None, "text": None, "link": target})
            continue
        if kind != "file":
            continue
        try:
            data = read_agent_file(root, below / rel_name)
        except NotReadable as exc:
            out.append({"path": rel, "size": size, "text": None, "note": str(exc)})
            continue
        try:
            text = data[: MAX_FILE_CHARS * 4].decode("utf-8")[:MAX_FILE_CHARS]
        except UnicodeDecodeError:
            text = None
        out.append({"path": rel, "size": size, "text": text})
    return out


def _through_a_link(root: Path, below: PurePosixPath) -> dict | str | None:
    """None when root/below is a folder reached through no link; '' when it is not there; else a listing entry
    that names the link (the board shows it, never what it points at)."""
    here = root
    for part in below.parts:
        here = here / part
        if here.is_symlink():
            target = os.fsencode(os.readlink(here)).decode("utf-8", "backslashreplace")
            return {"path": str(here.relative_to(root)), "size": None, "text": None, "link": target}
        if not here.is_dir():
            return ""
    return None


def read_text(root: Path, rel: str | PurePosixPath, limit: int = 200_000) -> str:
    """Text of root/rel for a page, read through no link below root: '' when it is not there, a note in
    brackets when it is there but not a plain file (a link, a FIFO, too big)."""
    try:
        return read_agent_text(root, rel, max_bytes=RECORD_BYTES)[:limit]
    except NotReadable as exc:
        return "" if not os.path.lexists(Path(root) / rel) else f"(not shown: {exc})"


def record_events(root: Path, rel: str | PurePosixPath) -> tuple[list[dict], str]:
    """The events of root/rel (an events.jsonl) read through no link, lines that are not JSON objects skipped as
    read_events does; and a note when the file is there but not shown."""
    try:
        text = read_agent_text(root, rel, max_bytes=RECORD_BYTES)
    except NotReadable as exc:
        return [], "" if not os.path.lexists(Path(root) / rel) else f"(not shown: {exc})"
    events = []
    for line in text.splitlines():
        try:
            ev = json.loads(line)
        except (ValueError, RecursionError):  # the harness wrote it; a cut or garbled line is skipped
            continue
        if isinstance(ev, dict):
            events.append(ev)
    return events, ""


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
