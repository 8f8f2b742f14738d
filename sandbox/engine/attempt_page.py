"""What an agent attempt changed, and a report a person can read.

The work folder is fingerprinted when the task's setup is done and again when the agent's sessions end (before
the hidden test, which may write files of its own): the difference is the list of files the agent added,
modified or deleted, caches left out. report.md beside result.json tells the attempt in one page: the prompts,
the outcome and the hidden test's output, the changed files with a short diff of each text file the task's setup
gave, tokens and time. Everything the agent wrote is shown inside code fences longer than any run of backticks it
holds, so nothing it wrote can break out of the fence.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from pathlib import Path

from sandbox.engine.attempt_folders import SKIPPED_NAMES
from sandbox.isolation.trees import Walk

CACHES = SKIPPED_NAMES | {".ruff_cache"}
MAX_FILES = 5000  # a tree the agent shaped against us is fingerprinted this far, no further
MAX_HASHED = 4 * 1024 * 1024  # bigger files are compared by size and time, not content
MAX_HASHED_TOTAL = 256 * 1024 * 1024  # and past this much read in all, every further file too
MAX_LISTED = 200
DIFF_LINES = 40
REPORT = "report.md"


def _shown(rel: str) -> str:
    """A name that is not UTF-8 as text with \\x escapes (records are strict UTF-8)."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def fingerprint(workdir: Path) -> dict[str, str]:
    """rel path (shown) -> a digest of its content (or of its size and time, for a big file; a link's target)."""
    out: dict[str, str] = {}
    read = 0
    walk = Walk(Path(workdir), max_entries=MAX_FILES, skip=lambda e: e.name in CACHES)
    for e in walk:
        if e.name in CACHES or e.name.endswith(".pyc") or e.kind == "dir":
            continue
        if e.kind == "link":
            out[_shown(e.rel)] = "link:" + _shown(os.readlink(e.name, dir_fd=e.dir_fd))
        elif e.kind == "file" and e.st.st_size <= MAX_HASHED and read + e.st.st_size <= MAX_HASHED_TOTAL:
            read += e.st.st_size
            try:
                fd = os.open(e.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=e.dir_fd)
            except OSError:  # e.g. a file the agent made unreadable: still there, compared by size and time
                out[_shown(e.rel)] = f"unreadable:{e.st.st_size}:{e.st.st_mtime_ns}"
                continue
            with os.fdopen(fd, "rb") as f:
                out[_shown(e.rel)] = hashlib.sha256(f.read()).hexdigest()
        else:
            out[_shown(e.rel)] = f"{e.kind}:{e.st.st_size}:{e.st.st_mtime_ns}"
    return out


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[dict]:
    """[{path, change}] sorted by path: added, modified, deleted; at most MAX_LISTED."""
    changes = [{"path": p, "change": "added" if p not in before else "deleted" if p not in after else "modified"}
               for p in sorted(set(before) | set(after)) if before.get(p) != after.get(p)]
    return changes[:MAX_LISTED]


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}text\n{text}\n{ticks}"


def _read(path: Path, limit: int = 64 * 1024) -> str | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_bytes()[:limit].decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _diff(setup: Path | None, final: Path, change: dict) -> str:
    """A short unified diff for a text file the setup gave; else a line saying what changed."""
    rel = change["path"]
    old = _read(setup / rel) if setup is not None else None
    new = _read(final / rel)
    if change["change"] == "modified" and old is not None and new is not None:
        lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{rel}", f"b/{rel}", lineterm=""))
        more = len(lines) - DIFF_LINES
        return _fence("\n".join(lines[:DIFF_LINES]) + (f"\n... {more} more lines" if more > 0 else ""))
    if change["change"] == "added" and new is not None:
        head = new.splitlines()[:DIFF_LINES]
        return _fence("\n".join(head))
    return ""


def write_report(record: Path, result: dict, prompts: list[str], setup: Path | None) -> None:
    """report.md in the attempt's record folder (its final files are in record/workdir)."""
    tests = _read(record / "tests.txt") or ""
    lines = [f"# {result.get('task')} · {result.get('condition')} · seed {result.get('seed')}", "",
             f"- outcome: **{result.get('outcome')}** {result.get('detail') or ''}".rstrip(),
             f"- model: {result.get('model')} · agent: {result.get('agent')}",
             f"- time: {result.get('duration_s')} s of agent, {result.get('wall_s')} s in all · turns "
             f"{result.get('turns')} · tool calls {result.get('tool_calls')} · tokens in {result.get('input_tokens')}"
             f" / out {result.get('output_tokens')} · stop: {result.get('stop_reason') or '-'}", ""]
    for i, p in enumerate(prompts, 1):
        lines += [f"## Prompt{f' {i}' if len(prompts) > 1 else ''}", "", _fence(p), ""]
    changes = result.get("changed_files") or []
    lines += ["## Files the agent changed", ""]
    if not changes:
        lines += ["none", ""]
    for c in changes:
        shown_path = c["path"].replace("`", "'")  # a backtick in a name must not end the code span
        lines += [f"- {c['change']}: `{shown_path}`"]
        shown = _diff(setup, record / "workdir", c)
        if shown:
            lines += ["", shown, ""]
    lines += ["", "## Hidden test output", "", _fence(tests[-4000:] or "(none)"), ""]
    if result.get("final_message"):
        lines += ["## The agent's last message", "", _fence(result["final_message"]), ""]
    (record / REPORT).write_text("\n".join(lines), encoding="utf-8")
