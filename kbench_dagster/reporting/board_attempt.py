"""One attempt's board page: its facts, the conversation, the hidden test output and the final files."""

from __future__ import annotations

import json
from pathlib import Path

from kbench_dagster.reporting import board_data
from kbench_dagster.reporting.board_html import esc, page, slug
from kbench_dagster.reporting.board_trajectory import args_text, conversation, final_files, read_text


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


def run_page(a: dict, rec: Path, out: Path) -> None:
    path = out / run_href(a, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    result = {}
    if (rec / "result.json").exists():
        result = json.loads((rec / "result.json").read_text())
    keys = ("outcome", "detail", "duration_s", "turns", "input_tokens", "output_tokens", "tool_calls", "tool_errors",
            "tool_format_errors", "cutoffs", "agent_timeout", "stop_reason", "false_claim", "watchdog_kills",
            "outside_writes", "infra_error", "server_error", "isolation", "started_at")
    facts = "".join(f"<tr><td class=l>{k}</td><td class=l>{esc(result.get(k, a.get(k)))}</td></tr>" for k in keys)
    files = final_files(rec / "workdir")
    files_html = "".join(_final_file_html(f) for f in files) or "<p>(no files)</p>"
    body = (f"<p><a href='../../../../task/{esc(slug(a['task']))}.html#{slug(board_data.group_key(a))}'>task "
            f"{esc(a['task'])}</a> · run "
            f"{esc(a['run_id'])} · {esc(a['model'])} · {esc(a['agent'])} · condition {esc(a['condition'])} · seed "
            f"{a['seed']} · outcome <strong id='outcome'>{esc(a['outcome'])}</strong></p>"
            f"<table>{facts}</table><h2>Conversation</h2>{render_conversation(conversation(rec / 'events.jsonl'))}"
            f"<h2>Hidden test output</h2><pre id='tests'>{esc(read_text(rec / 'tests.txt')) or '(none)'}</pre>"
            f"<h2>Final files</h2>{files_html}")
    path.write_text(page(f"{a['task']} · {a['run_id']} · {a['condition']} · s{a['seed']}", body, depth=4))


def _final_file_html(f: dict) -> str:
    if f.get("link") is not None:
        return f"<h3>{esc(f['path'])} &rarr; {esc(f['link'])}</h3><p>(a link; not followed)</p>"
    return (f"<h3>{esc(f['path'])} ({f['size']} bytes)</h3>"
            f"<pre>{esc(f['text'] if f['text'] is not None else '(binary)')}</pre>")
