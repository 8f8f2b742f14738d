"""One attempt's board page: its facts, the conversation, the hidden test output and the final files."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from kbench_dagster.reporting import board_data
from kbench_dagster.reporting.board_html import esc, page, slug
from kbench_dagster.reporting.board_trajectory import (
    args_text,
    conversation,
    final_files,
    read_text,
    record_events,
)
from sandbox.judge.files import NotReadable, read_agent_file
from sandbox.judge.parse import Refused, bounded_json

RESULT_BYTES = 4 << 20  # a result.json is some kilobytes; the bounded parser takes no more than this


def run_href(a: dict, depth: int) -> str:
    return f"{'../' * depth}run/{slug(a['run_id'])}/{slug(a['condition'])}/{slug(a['task'])}/s{a['seed']}.html"


def render_conversation(turns: list[dict]) -> str:
    parts = []
    session = None
    for t in turns:
        if t["session"] != session:
            session = t["session"]
            parts.append(f"<h3>session {esc(session)}</h3>")
        kind = t["kind"]
        if kind == "prompt":
            parts.append(f"<div class='turn user'><div class=who>user</div><pre>{esc(t['text'])}</pre></div>")
        elif kind == "assistant":
            think = (f"<details><summary>thinking</summary><pre>{esc(t['reasoning'])}</pre></details>"
                     if t.get("reasoning") else "")
            parts.append(f"<div class='turn assistant'><div class=who>assistant"
                         f"{' (stop: ' + esc(t.get('stop')) + ')' if t.get('stop') else ''}</div>{think}"
                         f"<pre>{esc(t['text'] or '(no text)')}</pre></div>")
        elif kind == "tool_call":
            args = args_text(t["args"])
            parts.append(f"<div class='turn tool_call'><div class=who>tool call: {esc(t['name'])}"
                         f"{' (' + esc(t.get('form')) + ')' if t.get('form') else ''}</div>"
                         f"<pre>{esc(args)}</pre></div>")
        elif kind == "tool_result":
            parts.append(f"<div class='turn tool_result'><div class=who>tool result: {esc(t['name'])}"
                         f"{' — error' if t['is_error'] else ''}</div><pre>{esc(t['text'])}</pre></div>")
        else:
            parts.append(f"<div class='turn {esc(kind)}'><div class=who>{esc(kind)}</div>"
                         f"<pre>{esc(t['text'])}</pre></div>")
    return "".join(parts) or "<p>(no events)</p>"


def run_page(a: dict, root: Path, rel: PurePosixPath, out: Path) -> bool:
    """The attempt's page from its record folder root/rel, every file read through no link below the runs root
    (rule 3 of sandbox/judge); False, and no page, when the record is not there."""
    try:
        result = bounded_json(read_agent_file(root, rel / "result.json", max_bytes=RESULT_BYTES))
    except (NotReadable, Refused) as exc:
        if not os.path.lexists(root / rel):
            return False
        result, note = {}, f"<p class='note'>The record is not shown: {esc(exc)}</p>"
    else:
        note = ""
    result = result if isinstance(result, dict) else {}
    path = out / run_href(a, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = ("outcome", "detail", "duration_s", "turns", "input_tokens", "output_tokens", "tool_calls", "tool_errors",
            "tool_format_errors", "cutoffs", "agent_timeout", "stop_reason", "false_claim", "watchdog_kills",
            "outside_writes", "infra_error", "server_error", "isolation", "started_at")
    facts = "".join(f"<tr><td class=l>{k}</td><td class=l>{esc(result.get(k, a.get(k)))}</td></tr>" for k in keys)
    files = final_files(root / rel / "workdir", root)
    files_html = "".join(_final_file_html(f) for f in files) or "<p>(no files)</p>"
    events, events_note = record_events(root, rel / "events.jsonl")
    body = (f"<p><a href='../../../../task/{esc(slug(a['task']))}.html#{slug(board_data.group_key(a))}'>task "
            f"{esc(a['task'])}</a> · run "
            f"{esc(a['run_id'])} · {esc(a['model'])} · {esc(a['agent'])} · condition {esc(a['condition'])} · seed "
            f"{a['seed']} · outcome <strong id='outcome'>{esc(a['outcome'])}</strong></p>{note}"
            f"<table>{facts}</table><h2>Conversation</h2>{esc(events_note)}{render_conversation(conversation(events))}"
            f"<h2>Hidden test output</h2><pre id='tests'>{esc(read_text(root, rel / 'tests.txt')) or '(none)'}</pre>"
            f"<h2>Final files</h2>{files_html}")
    path.write_text(page(f"{a['task']} · {a['run_id']} · {a['condition']} · s{a['seed']}", body, depth=4))
    return True


def _final_file_html(f: dict) -> str:
    if f.get("link") is not None:
        return f"<h3>{esc(f['path'])} &rarr; {esc(f['link'])}</h3><p>(a link; not followed)</p>"
    if f.get("note"):
        return f"<h3>{esc(f['path'])}</h3><p>(not shown: {esc(f['note'])})</p>"
    return (f"<h3>{esc(f['path'])} ({f['size']} bytes)</h3>"
            f"<pre>{esc(f['text'] if f['text'] is not None else '(binary)')}</pre>")
