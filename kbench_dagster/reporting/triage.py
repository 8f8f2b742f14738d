"""`kbench triage`: why a run's attempts failed, ranked by cause, and one task's full evidence."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from kbench_dagster.reporting.board_trajectory import conversation, conversation_text, record_files
from kbench_dagster.terminal import visible
from sandbox.engine.attempt_reader import record_at


def crash_kind(detail: str, tests_text: str) -> str:
    """A short name for why the hidden test crashed: the exception class, a missing function, a watchdog kill."""
    if "watchdog" in (detail or ""):
        m = re.search(r"killed by the (\w+) watchdog", detail)
        return f"killed by the {m.group(1) if m else ''} watchdog".replace("  ", " ")
    for line in tests_text.splitlines():
        if line.startswith("CRASH"):
            if "has no function" in line:
                return "missing function"
            if "cannot load" in line or "node failed" in line:
                return "does not load"
            m = re.search(r":\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))\(", line) or \
                re.search(r":\s*([A-Za-z_][\w.]*)\(", line)
            if m:
                return m.group(1)
    if "without its result line" in (detail or ""):
        return "no result line"
    return "other"


def failure_cause(r: dict, tests_text: str = "") -> str:
    """One cause per failed attempt, the most telling first: server trouble, then the agent's own limits
    (time, cut-off replies, tool calls it could not make), then what the hidden test saw."""
    o = r["outcome"]
    if r.get("harness_error"):
        return "harness error (infra)"
    if o == "infra":
        return "server error (infra)"
    if r.get("server_error"):
        return "server error"
    if r.get("agent_timeout"):
        return "agent timeout"
    if (r.get("cutoffs") or 0) > 0:
        return "cut-off replies"
    if (r.get("tool_format_errors") or 0) > 0 and o == "nofile":
        return "tool-format errors"
    if o == "timeout":
        return "test timeout"
    if o == "crash":
        return f"crash: {crash_kind(r.get('detail') or '', tests_text)}"
    if o == "nofile":
        return "nofile"
    return "wrong output"


def triage(results: list[dict]) -> dict:
    failed = [r for r in results if r["outcome"] not in ("pass", "skipped")]
    causes: dict[str, list[dict]] = defaultdict(list)
    for r in failed:
        rec = record_at(r["record_path"]) if r.get("record_path") else None
        tests = rec.tests()[:50_000] if rec else ""
        causes[failure_cause(r, tests)].append(r)
    signals = Counter()
    for r in failed:
        signals["agent timeout"] += bool(r.get("agent_timeout"))
        signals["cut-off replies"] += int(r.get("cutoffs") or 0)
        signals["tool-format errors"] += int(r.get("tool_format_errors") or 0)
        signals["tool errors"] += int(r.get("tool_errors") or 0)
        signals["server errors"] += bool(r.get("server_error") or (r.get("infra_error") and not r.get("harness_error")))
        signals["harness errors"] += bool(r.get("harness_error"))
        signals["false claims"] += bool(r.get("false_claim"))
        signals["watchdog kills"] += int(r.get("watchdog_kills") or 0)
    ranked = sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {"attempts": len(results), "failed": len(failed), "causes": ranked, "signals": dict(signals)}


def render_triage(run_id: str, results: list[dict]) -> str:
    t = triage(results)
    out = [f"run {run_id}: {t['failed']} of {t['attempts']} attempts did not pass; causes, most frequent first", ""]
    out.append(f"{'cause':28} {'runs':>5}  tasks")
    for cause, rs in t["causes"]:
        names = sorted({f"{r['task']}" + (f"[{r['condition']}]" if len({x['condition'] for x in results}) > 1 else "")
                        for r in rs})
        out.append(f"{cause:28} {len(rs):>5}  {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}")
    sig = {k: v for k, v in t["signals"].items() if v}
    if sig:
        out += ["", "signals across the failed attempts (one attempt can show several):"]
        out += [f"  {k:20} {v}" for k, v in sorted(sig.items(), key=lambda kv: -kv[1])]
    out += ["", f"one task's full evidence: kbench triage {run_id} --task TASK"]
    return "\n".join(out)


def render_evidence(results: list[dict], task: str) -> str:
    rs = [r for r in results if r["task"] == task]
    if not rs:
        raise ValueError(f"no attempts of task {task!r} in this run")
    out = []
    for r in sorted(rs, key=lambda r: (r["condition"], r["seed"])):
        rec = record_at(r["record_path"])
        tests = rec.tests() if rec else ""
        out += [f"##### {r['task']} {r['condition']} s{r['seed']}: {r['outcome']}"
                + (f" ({failure_cause(r, tests)})" if r["outcome"] not in ("pass", "skipped") else ""),
                f"record {r['record_path']}",
                f"time {float(r.get('duration_s') or 0):.1f}s, turns {r.get('turns')}, "
                f"tokens in {r.get('input_tokens')} out {r.get('output_tokens')}, tool calls {r.get('tool_calls')}, "
                f"tool errors {r.get('tool_errors')}, format errors {r.get('tool_format_errors')}, "
                f"cut-offs {r.get('cutoffs')}, stop {r.get('stop_reason')}"
                + (", false claim" if r.get("false_claim") else ""),
                ]
        if r.get("detail"):
            out.append(f"detail: {visible(r['detail'], layout=False)}")
        if r.get("harness_error"):
            out.append(f"harness: {visible(r['harness_error'], layout=False)}")
        elif r.get("infra_error") or r.get("server_error"):
            out.append(f"server: {visible(r.get('infra_error') or r.get('server_error'), layout=False)}")
        for n, tried in enumerate(rec.requeued() if rec else [], 1):
            why = next((e.get("reason") for e in tried if e.get("type") == "requeue"), "unknown")
            out.append(f"requeued, attempt{n}: {visible(why, layout=False)} ({len(tried)} events kept)")
        out += ["", "--- conversation", visible(conversation_text(conversation(rec.events() if rec else []))) or
                "(no events)", "", "--- hidden test output (tests.txt)", visible(tests.rstrip()) or "(none)", "",
                "--- final files"]
        files = record_files(rec)
        if not files:
            out.append("(none)")
        left_out = r.get("files_left_out") or []
        if left_out:
            shown = ", ".join(visible(x, layout=False) for x in left_out[:20])
            out.append(f"not kept in the record ({len(left_out)}): {shown}" + (" ..." if len(left_out) > 20 else ""))
        for f in files:
            path = visible(f["path"], layout=False)
            if f.get("link") is not None:
                out.append(f"--- {path} -> {visible(f['link'], layout=False)} (a link; not followed)")
            else:
                out.append(f"--- {path} ({f['size']} bytes)")
                out.append(visible(f["text"].rstrip()) if f["text"] is not None else "(binary)")
        out.append("")
    return "\n".join(out)
