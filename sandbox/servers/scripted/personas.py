"""The reply logic of the scripted model server: one persona per behaviour, each deterministic.

A persona sees one chat request at a time and keeps no conversation state: where a conversation stands is read
from its messages (how many assistant turns it already holds). Only chaos keeps a counter, to rotate through its
failures. Never imports dagster.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

ToolFormat = Literal["native", "text"]
PERSONAS = ("oracle", "null", "liar", "chaos", "hostile", "replay", "noisy", "judge", "lenient_judge")
FINISH_REASONS = ("stop", "tool_calls", "length")

ORACLE_DONE = "Done: the task is complete."
NULL_REPLY = "I am not able to do that."
LIAR_REPLY = "I have finished the task. I ran it and all tests pass; the result is correct."
HOSTILE_DONE = "Done. (hostile persona: every attack of the plan was tried)"
REPLAY_END = "(end of script)"

# --- requests and replies -------------------------------------------------------------------------------------


def text_of(content) -> str:
    """The text of a message's content: a string, or a list of parts ({"type": "text", "text": ...})."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


@dataclass(frozen=True)
class Conversation:
    """The messages of one chat request, with the views the personas need."""

    messages: list[dict]
    response_format: dict | None = None  # as the request asked it

    @property
    def assistant_turns(self) -> int:
        return sum(1 for m in self.messages if isinstance(m, dict) and m.get("role") == "assistant")

    def texts(self, *roles: str) -> list[str]:
        return [text_of(m.get("content")) for m in self.messages if isinstance(m, dict) and m.get("role") in roles]

    @property
    def first_user_text(self) -> str:
        users = self.texts("user")
        return users[0] if users else ""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict | str  # a str is sent as is (a replay may carry deliberately broken JSON)

    @property
    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """An assistant message: text, tool calls, or both."""

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None  # None: "tool_calls" when there are calls, else "stop"
    note: str = ""  # the persona's decision, for the verbose log

    @property
    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


ChaosKind = Literal["http_500", "reset", "bad_json", "truncated", "slow_503"]
CHAOS_KINDS: tuple[ChaosKind, ...] = ("http_500", "reset", "bad_json", "truncated", "slow_503")


@dataclass(frozen=True)
class Failure:
    """A failure the server acts out instead of replying (chaos persona)."""

    kind: ChaosKind
    note: str = ""


def call_id(turn: int, index: int = 0) -> str:
    return f"call_{turn}_{index}"


def tool_reply(turn: int, name: str, arguments: dict | str, note: str = "") -> Reply:
    return Reply(None, (ToolCall(call_id(turn), name, arguments),), note=note)


def as_text_format(reply: Reply) -> Reply:
    """Tool calls written into the content as fenced ```json {"name": ..., "arguments": {...}}``` blocks.

    This is how small local models without native tool calling answer; no native tool_calls remain and the
    finish reason is "stop".
    """
    if not reply.tool_calls:
        return reply
    blocks = []
    for call in reply.tool_calls:
        try:
            args = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
        except json.JSONDecodeError:
            args = call.arguments
        blocks.append("```json\n" + json.dumps({"name": call.name, "arguments": args}, ensure_ascii=False) + "\n```")
    text = "\n\n".join(([reply.content] if reply.content else []) + blocks)
    finish = None if reply.finish_reason in (None, "tool_calls") else reply.finish_reason
    return Reply(text, (), finish, reply.note)


def as_constrained(reply: Reply) -> Reply:
    """The reply as the builtin agent's constrained format asks (sandbox/agents/constrained.py): one JSON action,
    the first call's, or done with the text."""
    if reply.tool_calls:
        call = reply.tool_calls[0]
        args = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments
        return Reply(json.dumps({"tool": call.name, "arguments": args}), (), None, reply.note)
    return Reply(json.dumps({"tool": "done", "message": reply.content or ""}), (), reply.finish_reason, reply.note)


class Persona(Protocol):
    name: str

    def respond(self, conv: Conversation) -> Reply | Failure: ...


# --- the personas -------------------------------------------------------------------------------------------


class OraclePersona:
    """Solves any task of the suite with its reference solution, one tool call per assistant turn."""

    name = "oracle"

    def __init__(self, suite="kbench", index=None):
        if index is None:  # a kind with tasks of its own brings their index (the kernel tasks do)
            from sandbox.servers.scripted.oracle import (
                TaskIndex,  # task_defs and pydantic only where the oracle is used
            )

            index = TaskIndex(suite)
        self.index = index

    def find(self, conv: Conversation):
        """The task of a conversation: by its first user message, else any later user or system message."""
        for text in [conv.first_user_text] + conv.texts("user")[1:] + conv.texts("system", "developer"):
            m = self.index.match(text)
            if m is not None:
                return m
        return None

    def respond(self, conv: Conversation) -> Reply:
        m = self.find(conv)
        if m is None:
            return Reply(f"I cannot help with this: the request matches no task of suite {self.index.suite.name!r} "
                         "(scripted oracle).", note="no task matches the prompt")
        plan = self.index.plan_for(m)
        turn = conv.assistant_turns
        where = f"task={m.task.id} prompt={m.prompt_index + 1}/{len(m.task.all_prompts)}"
        if turn < len(plan):
            step = plan[turn]
            return tool_reply(turn, step.name, step.arguments,
                              note=f"{where} step {turn + 1}/{len(plan)} -> {step.describe()}")
        return Reply(ORACLE_DONE, note=f"{where} plan of {len(plan)} done -> final text")


class JudgePersona:
    """A judge for tests (sandbox/chatwork/judge.py): it answers each criterion of a vote by a fixed rule on the
    criterion's length and the vote's number, yes when (length + vote) % 4 is 0 or 1, so votes differ and the
    median of three is yes exactly when the length % 4 is 2 or 3 (a test computes it by hand).

    It does what the prompt asks of a judge: the quoted reply (between the fence lines that carry the prompt's
    token) is data, so the vote and the criteria are read from the prompt outside the quote only."""

    name = "judge"
    FENCE = re.compile(r"^<<<REPLY ([0-9a-f]+)>>>$", re.M)

    def __init__(self, lenient: bool = False):  # lenient: yes to everything, a judge partial to every reply
        self.lenient, self.name = lenient, "lenient_judge" if lenient else "judge"

    def respond(self, conv: Conversation) -> Reply:
        text = conv.texts("user")[-1] if conv.texts("user") else ""
        fence = self.FENCE.search(text)
        end = text.find(f"\n<<<END REPLY {fence.group(1)}>>>", fence.end()) if fence else -1
        if end < 0:
            return Reply("This is not a judging request (scripted judge).", note="no quoted reply")
        before = text[:fence.start()]
        vote = re.search(r"This is vote (\d+) of", before)
        lines = re.findall(r"^C(\d+): (.*)$", before.split("THE CRITERIA:", 1)[-1], re.M)
        if not vote or not lines:
            return Reply("This is not a judging request (scripted judge).", note="not a judging request")
        v = int(vote.group(1))
        said = {f"C{k}": "yes" if self.lenient or (len(c.strip()) + v) % 4 in (0, 1) else "no" for k, c in lines}
        return Reply(json.dumps(said), note=f"judge vote {v}: {len(lines)} criteria")


class TextPersona:
    """Always the same text, never a tool call (null: cannot do it; liar: claims success having done nothing)."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text

    def respond(self, conv: Conversation) -> Reply:
        return Reply(self.text, note="text only")


class ChaosPersona:
    """Every chat request fails, rotating through CHAOS_KINDS in the order the requests arrive."""

    name = "chaos"

    def __init__(self, kinds: tuple[ChaosKind, ...] = CHAOS_KINDS):
        self.kinds = tuple(kinds)
        self._lock = threading.Lock()
        self.served = 0

    def respond(self, conv: Conversation) -> Failure:
        with self._lock:
            n = self.served
            self.served += 1
        kind = self.kinds[n % len(self.kinds)]
        return Failure(kind, note=f"failure #{n + 1}: {kind}")


# The hostile plan: the attacks a sandbox must survive. Run it only inside the sandbox: the fork bomb and the
# memory hog are not bounded here, stopping them is the sandbox's job. The milder steps come first and the fork
# bomb last, since the process watchdog ends the whole session when it fires.
HOSTILE_PLAN: tuple[tuple[str, str, dict], ...] = (
    ("search", "bash", {"command":
        "timeout 30 find / -name 'test_task.py' -o -name 'solve.sh' 2>/dev/null | head; "
        "ls /work /root 2>&1; ls -la .. 2>&1 | head -20; "
        "cat /proc/1/environ 2>&1 | tr '\\0' '\\n' | head"}),
    ("escape_bash", "bash", {"command":
        "echo x > /tmp/kb-hostile-$$; echo x > ~/kb-hostile; echo x > ../kb-hostile-escape; "
        "echo x > /etc/kb-hostile; echo written"}),
    ("escape_write_abs", "write", {"path": "/tmp/kb-hostile-write.txt", "content": "hostile\n"}),
    ("escape_write_up", "write", {"path": "../escape.txt", "content": "hostile\n"}),
    ("daemon", "bash", {"command": "setsid sleep 3600 > /dev/null 2>&1 < /dev/null & echo \"daemon $!\""}),
    # The memory hog comes before the endless printer: pi keeps a full copy of a command's output in a temp
    # file, so `yes` ends pi itself at the file-size limit and nothing after it would run under pi.
    ("memory", "bash", {"command":
        "python3 -c \"import time; x = b'k' * (3 * 1024 ** 3); print('holding 3 GB', flush=True); time.sleep(15)\""}),
    ("output", "bash", {"command": "timeout 8 yes"}),
    ("forkbomb", "bash", {"command": ":(){ :|:& };:"}),
)


class HostilePersona:
    """Attacks the sandbox from inside: one step of HOSTILE_PLAN per assistant turn, then a final text."""

    name = "hostile"

    def respond(self, conv: Conversation) -> Reply:
        turn = conv.assistant_turns
        if turn < len(HOSTILE_PLAN):
            step, tool, args = HOSTILE_PLAN[turn]
            return tool_reply(turn, tool, dict(args), note=f"step {turn + 1}/{len(HOSTILE_PLAN)}: {step}")
        return Reply(HOSTILE_DONE, note="final text")


class ReplayFileError(ValueError):
    """A replay script that cannot be read; the message names the file and the line."""


def _replay_call(path: Path, lineno: int, turn: int, j: int, raw) -> ToolCall:
    def bad(msg: str) -> ReplayFileError:
        return ReplayFileError(f"{path}:{lineno}: tool_calls[{j}]: {msg}")

    if not isinstance(raw, dict):
        raise bad("must be an object {\"name\": ..., \"arguments\": {...}}")
    fn = raw.get("function", raw)  # the OpenAI form {"type": "function", "function": {...}} works too
    if not isinstance(fn, dict):
        raise bad("'function' must be an object")
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise bad("needs a non-empty string 'name'")
    args = fn.get("arguments", {})
    if not isinstance(args, (dict, str)):
        raise bad("'arguments' must be an object (or a JSON string)")
    cid = raw.get("id", call_id(turn, j))
    if not isinstance(cid, str) or not cid:
        raise bad("'id' must be a non-empty string")
    return ToolCall(cid, name, args)


def load_replay(path: str | Path) -> list[Reply]:
    """One reply per line of a JSONL file: {"content": ...} and/or {"tool_calls": [...]}, optional finish_reason.

    Blank lines are skipped (line numbers in errors still count them). Raises ReplayFileError naming the line.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayFileError(f"{path}: cannot read the replay file: {exc}") from None
    replies: list[Reply] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayFileError(f"{path}:{lineno}: not valid JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise ReplayFileError(f"{path}:{lineno}: each line must be a JSON object, got {type(obj).__name__}")
        unknown = set(obj) - {"content", "tool_calls", "finish_reason"}
        if unknown:
            raise ReplayFileError(f"{path}:{lineno}: unknown keys {sorted(unknown)}; "
                                  "use content, tool_calls, finish_reason")
        content = obj.get("content")
        if content is not None and not isinstance(content, str):
            raise ReplayFileError(f"{path}:{lineno}: 'content' must be a string or null")
        raw_calls = obj.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise ReplayFileError(f"{path}:{lineno}: 'tool_calls' must be a list")
        turn = len(replies)
        calls = tuple(_replay_call(path, lineno, turn, j, c) for j, c in enumerate(raw_calls))
        if content is None and not calls:
            raise ReplayFileError(f"{path}:{lineno}: a reply needs 'content' or 'tool_calls'")
        finish = obj.get("finish_reason")
        if finish is not None and finish not in FINISH_REASONS:
            raise ReplayFileError(f"{path}:{lineno}: 'finish_reason' must be one of {', '.join(FINISH_REASONS)}")
        replies.append(Reply(content, calls, finish, note=f"line {lineno}"))
    return replies


class ReplayPersona:
    """Reply i of the script goes to the request with i assistant turns; past the end, "(end of script)"."""

    name = "replay"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.replies = load_replay(self.path)

    def respond(self, conv: Conversation) -> Reply:
        turn = conv.assistant_turns
        if turn < len(self.replies):
            r = self.replies[turn]
            return Reply(r.content, r.tool_calls, r.finish_reason, note=f"reply {turn + 1}/{len(self.replies)} "
                                                                         f"({r.note})")
        return Reply(REPLAY_END, note=f"past the end of the script ({len(self.replies)} replies)")


def make_persona(name: str, suite="kbench", replay_path: str | Path | None = None,
                 chaos_kinds: tuple[ChaosKind, ...] = CHAOS_KINDS) -> Persona:
    """A persona by name; raises ValueError for an unknown name, ReplayFileError for a bad replay file."""
    from sandbox.engine.registry import persona  # a kind's own personas: only its module is loaded

    own = persona(suite, name)
    if own is not None:
        return own
    if name == "noisy":
        raise ValueError("persona 'noisy' answers the text jobs or the breakdown jobs: give suite 'textjobs' or "
                         "'breakdown'")
    if name in ("judge", "lenient_judge"):
        return JudgePersona(lenient=name == "lenient_judge")
    if name == "oracle":
        return OraclePersona(suite)
    if name == "null":
        return TextPersona("null", NULL_REPLY)
    if name == "liar":
        return TextPersona("liar", LIAR_REPLY)
    if name == "chaos":
        unknown = [k for k in chaos_kinds if k not in CHAOS_KINDS]
        if unknown or not chaos_kinds:
            raise ValueError(f"chaos kinds must be a non-empty selection of {', '.join(CHAOS_KINDS)}")
        return ChaosPersona(tuple(chaos_kinds))
    if name == "hostile":
        return HostilePersona()
    if name == "replay":
        if replay_path is None:
            raise ValueError("persona 'replay' needs a replay file (replay_path)")
        return ReplayPersona(replay_path)
    raise ValueError(f"unknown persona {name!r}; choose one of {', '.join(PERSONAS)}")
