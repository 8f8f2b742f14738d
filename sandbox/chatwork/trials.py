"""The tool-use trials as a kind of work: each trial is one attempt, a short exchange with its tools offered.

`request_of` is the one place a trial becomes what the model receives (messages, tools, response format; the tools
in an order shuffled by the trial and the attempt's seed, so a model that always takes the first tool offered
scores only the chance floor). It serves the request, the cache key and `kbench trials show` alike.

The exchange: when the model calls tools (natively, or written in its text), each call gets a neutral result and
the model goes on, until it answers without a call or ROUNDS replies are in; every call of every reply is graded.
A model that calls one step at a time, waiting for each result as a real agent does, is judged on the whole
chain, not on its first step.

The answer channel of label and JSON trials is negotiated (sandbox/chatwork/formats.py). The replies are kept as
the server sent them (reply.json, in the attempt's record) and grading reads them, so a regrade after an oracle
change never asks again.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import tracemalloc
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sandbox.agents.textcalls import parse_text_calls
from sandbox.chatwork.formats import (
    MODES,
    Negotiation,
    answer_text,
    elicitation_fingerprint,
    format_of,
    is_format_rejection,
)
from sandbox.chatwork.shell_oracle import CachedShell, SandboxShell
from sandbox.chatwork.trial_card import NAME
from sandbox.engine.chat import ChatInfra, ChatReply, ChatSession, call_arguments, server_broke
from sandbox.engine.jsonlines import json_bytes, json_value
from sandbox.engine.kinds import Verdict
from sandbox.engine.reply_cache import ReplyCache
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.servers.scripted.personas import Conversation, Reply, ToolCall
from task_defs.trials.grading import Answer, Call, ShellRunner, answer_shape, grade, work_grade
from task_defs.trials.loader import Family, fingerprint, load_families, rules_fingerprint, tools_of
from task_defs.trials.machine.oracle import Feed
from task_defs.trials.models import Machine, Trial

REPLY = "reply.json"
CACHE_DIR = "cache/trials"  # the reply cache's folder under a runs root (never inside a run's own folder)
TIMEOUT_S = 120.0  # one exchange; a safety stop, its outcome is timeout, never wrong
ROUNDS = 4  # replies per exchange at most; calls past it are not answered (the ones made are graded)
TOOL_RESULT = json.dumps({"ok": True})  # says the call went through and nothing more: no hint of the next step
# Said once for every trial that offers tools: when to call, and that words are an answer too. It never hints
# which tool, nor whether one fits.
TOOLS_SYSTEM = ("You can call the tools offered with this request. Call the ones the request needs, with the values "
                "it gives; when no offered tool fits, answer in words and call nothing.")


@dataclass(frozen=True)
class TrialUnit:
    family: Family
    trial: Trial
    id: str = field(init=False, compare=False, repr=False)  # a field: the run loop reads it often

    def __post_init__(self):
        object.__setattr__(self, "id", self.trial.id)

    @cached_property  # an attempt's record and its trial fields both name it
    def grade(self) -> str:
        return work_grade(self.trial)


def request_of(unit: TrialUnit, seed: int, mode: str = "text") -> tuple[list[dict], list[dict], dict | None]:
    """(messages, tools, response_format) exactly as first sent for attempt `seed` of the trial under the answer
    format `mode`."""
    names = list(unit.trial.tools)
    random.Random(f"{unit.trial.id}:{seed}").shuffle(names)
    specs = tools_of(unit.trial, unit.family.spec.tools)
    tools = [{"type": "function", "function": {"name": n, **specs[n]}} for n in names]
    messages = [m.model_dump() for m in unit.trial.messages]
    response_format, hint = format_of(unit.trial, mode)
    system = TOOLS_SYSTEM if tools else hint
    if system and messages[0]["role"] != "system":
        messages.insert(0, {"role": "system", "content": system})
    elif system:
        messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{system}"}
    return messages, tools, response_format


def _calls_of(reply: dict, offered: list[str]) -> list[Call]:
    calls = []
    for c in reply.get("tool_calls") or []:
        calls.append(Call(c.get("name") or "", call_arguments(c), "native"))
    if not calls:
        calls = [Call(t.name, t.arguments if t.error is None else None, "text")
                 for t in parse_text_calls(reply.get("content") or "") if t.name in offered]
    return calls


def replies_of(kept: dict) -> list[dict]:
    """The replies of a kept exchange (a record made before exchanges held one reply at its top level)."""
    return kept["replies"] if isinstance(kept.get("replies"), list) else [kept]


def answer_of(kept: dict, offered: list[str], trial: Trial | None = None) -> Answer:
    """The model's answer from the kept exchange: every call of every reply in order (native, else calls of offered
    tools written in that reply's text, recorded as such; JSON in the text that names no offered tool is an answer,
    not a call) and the last reply's words, unwrapped from the negotiated JSON answer when there was one."""
    replies = replies_of(kept)
    calls = [c for r in replies for c in _calls_of(r, offered)]
    text = replies[-1].get("content") or "" if replies else ""
    if trial is not None:
        text = answer_text(trial, kept.get("mode") or "text", text)
    return Answer(text=text, calls=tuple(calls))


def provider_failure(reply: ChatReply) -> str | None:
    """What makes a reply the server's failure rather than the model's answer: nothing at all came back, or a native
    call's arguments are not JSON (the server's own parser broke them; arguments too deep or too big to read are
    the model's, graded as a wrong call)."""
    if reply.finish == "refused":
        return None
    if not reply.content.strip() and not reply.tool_calls and not reply.reasoning.strip():
        return "provider failure: an empty completion"
    for c in reply.tool_calls:
        if server_broke(c):
            return f"provider failure: the arguments of native call {c.get('name')!r} are not a JSON object"
    return None


def _results(reply: ChatReply, written: list[Call], n: int, feed: Feed | None = None) -> list[dict]:
    """The reply and the neutral result of each of its calls, as the next request carries them: native calls get
    tool messages; calls written in the text (a model without native calls) get one user message, as a harness
    that reads such calls answers them, so a model that calls one step at a time can go on either way. A machine
    trial's `feed` runs its shell tool's calls, in order, on the mock machine and answers with what they printed
    (a real shell tool's result; the grading replays the same calls)."""
    result = feed.result if feed is not None else (lambda name, arguments: TOOL_RESULT)
    if not reply.tool_calls:
        return [{"role": "assistant", "content": reply.content},
                {"role": "user", "content": "\n\n".join(f"Result of {c.name}:\n{result(c.name, c.arguments)}"
                                                         for c in written)}]
    ids = [c.get("id") or f"call_{n}_{i}" for i, c in enumerate(reply.tool_calls)]
    return [{"role": "assistant", "content": reply.content or None,
             "tool_calls": [{"id": i, "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                            for i, c in zip(ids, reply.tool_calls)]},
            *[{"role": "tool", "tool_call_id": i, "content": result(c.get("name") or "", call_arguments(c))}
              for i, c in zip(ids, reply.tool_calls)]]


def select_trials(kind: ToolTrials, only: str | None = None, limit: int | None = None,
                  sample: int | None = None) -> list[TrialUnit]:
    """The trials of the families named in `only` (all when None): the first `limit` of each, or a stratified
    `sample` of each (stratified())."""
    names = [n.strip() for n in (only or "").split(",") if n.strip()]
    known = [f.id for f in kind.families]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"--only: unknown family {', '.join(unknown)}; the families are {', '.join(known)}")
    for flag, n in (("--limit", limit), ("--sample", sample)):
        if n is not None and n < 1:
            raise ValueError(f"{flag} must be a positive number of trials per family")
    if limit is not None and sample is not None:
        raise ValueError("give --limit (the first K of each family) or --sample (a stratified K), not both")
    picked = []
    for f in kind.families:
        if names and f.id not in names:
            continue
        members = [x for x in kind.units if x.family.id == f.id]
        picked += stratified(members, sample) if sample else members[:limit]
    return picked


def stratified(units: list[TrialUnit], n: int) -> list[TrialUnit]:
    """n trials of one family spread over its strata (grade x hand-written or generated) in turn, each stratum in
    an order fixed by a hash of the trial ids: the same n gives the same trials, and a larger n keeps them. The
    first K of a family would be its hand-written easy trials only."""
    strata: dict[tuple, list[TrialUnit]] = defaultdict(list)
    for u in units:
        strata[(u.grade, u.trial.source)].append(u)
    queues = [sorted(v, key=lambda u: hashlib.sha256(u.id.encode()).digest()) for _, v in sorted(strata.items())]
    out: list[TrialUnit] = []
    while len(out) < min(n, len(units)):
        for q in queues:
            if q and len(out) < n:
                out.append(q.pop(0))
    order = {u.id: i for i, u in enumerate(units)}
    return sorted(out, key=lambda u: order[u.id])


HEAP_LOCK = threading.Lock()  # tracemalloc traces the whole process: one row's grading is traced at a time


def graded(trial: Trial, answer: Answer, shell: ShellRunner | None, heap: bool = True):
    """(the oracle's verdict, the Python heap's high-water mark while grading it, in bytes): tracemalloc is on only
    around the grading, one row at a time, so the mark is that row's (tracemalloc sees the whole process: another
    worker's allocations count only if it runs in the microseconds a row is traced, which holds the GIL while it
    computes). None when `heap` is off, or when something else is tracing
    already (`kbench trials floor`, PYTHONTRACEMALLOC): that trace is its owner's, never reset here. A shell trial's
    sandboxed run is not traced (its work is the commands' processes, and other workers must not wait on the lock
    for it): its mark is the oracle's own work before and after. Tracing adds its overhead to oracle_ms."""
    if not heap:
        return grade(trial, answer, shell), None
    HEAP_LOCK.acquire()
    if tracemalloc.is_tracing():
        HEAP_LOCK.release()
        return grade(trial, answer, shell), None
    mark = [0, 0]  # the highest peak before a pause, and what the trace held when it paused

    def paused(files: dict, commands: list, read: str | None):
        held, peak = tracemalloc.get_traced_memory()
        mark[0], mark[1] = max(mark[0], mark[1] + peak), mark[1] + held
        tracemalloc.stop()
        HEAP_LOCK.release()
        try:
            return shell(files, commands, read)
        finally:
            HEAP_LOCK.acquire()
            tracemalloc.start()

    tracemalloc.start()
    try:
        v = grade(trial, answer, paused if shell is not None else None)
        return v, max(mark[0], mark[1] + tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()
        HEAP_LOCK.release()


class ToolTrials:
    name = NAME
    runs_agent = False
    # each graded row records heap_peak_bytes (graded()) only when asked (`kbench trials run --heap`): tracemalloc
    # makes grading about 4 to 7 times slower (bench/trials_grading.py), past the 10,000 rows a second a regrade needs
    heap = False

    def __init__(self, families: list[Family] | None = None, response_format: str = "auto",
                 cache: ReplyCache | None = None):
        self.families = families if families is not None else load_families()
        self.fingerprint = fingerprint(self.families)
        self.rules = rules_fingerprint()
        self.negotiation = Negotiation(response_format)
        # per mode asked in: under auto, rows asked alike share a fingerprint with a run pinned to that mode
        self.elicitation = {m: elicitation_fingerprint(m, TOOLS_SYSTEM, ROUNDS, TOOL_RESULT) for m in MODES}
        self.cache = cache
        self._units = [TrialUnit(f, t) for f in self.families for t in f.trials]
        self._by_id = {u.id: u for u in self._units}

    @property
    def units(self) -> list[TrialUnit]:
        return list(self._units)

    def get(self, unit_id: str) -> TrialUnit:
        if unit_id not in self._by_id:
            raise KeyError(f"no trial {unit_id!r}; the families are {', '.join(f.id for f in self.families)} "
                           f"(e.g. {self._units[0].id})")
        return self._by_id[unit_id]

    def unit_fields(self, unit: TrialUnit) -> dict:
        return {"category": unit.family.id, "tier": unit.grade}

    def missing(self, unit: TrialUnit) -> list[str]:
        return []

    def timeout_s(self, unit: TrialUnit, run_timeout_s: float) -> float:
        return min(run_timeout_s, TIMEOUT_S)

    def _first(self, unit: TrialUnit, chat: ChatSession) -> tuple[str, list[dict], list[dict], ChatReply, list]:
        """The first request, stepping down the answer formats on the server's explicit refusals of one."""
        tried = []
        while True:
            mode = self.negotiation.mode
            messages, tools, fmt = request_of(unit, chat.attempt, mode)
            reply = chat.ask(messages, tools=tools or None, response_format=fmt, cache=self.cache)
            if fmt is None or not is_format_rejection(reply):
                return mode, messages, tools, reply, tried
            tried.append({"mode": mode, "error": reply.error})
            if not self.negotiation.step_down(mode):
                return mode, messages, tools, reply, tried

    def execute(self, unit: TrialUnit, chat: ChatSession, kept: dict[str, str]) -> None:
        mode, messages, tools, reply, tried = self._first(unit, chat)
        o = unit.trial.oracle
        feed = Feed(o, TOOL_RESULT) if isinstance(o, Machine) else None  # the mock machine, run as the calls come
        replies = []
        for n in range(ROUNDS):
            failure = provider_failure(reply)
            if failure:
                raise ChatInfra(failure)
            replies.append({"content": reply.content, "tool_calls": reply.tool_calls, "finish": reply.finish,
                            "error": reply.error})
            # kept as they come, so an exchange cut short keeps what it got (a regrade may settle it: settled())
            kept[REPLY] = json_bytes({"mode": mode, "refused_formats": tried, "replies": replies}).decode("utf-8")
            written = [] if reply.tool_calls else _calls_of(replies[-1], unit.trial.tools)
            if not (reply.tool_calls or written) or n == ROUNDS - 1:
                break
            messages = messages + _results(reply, written, n, feed)
            reply = chat.ask(messages, tools=tools, cache=self.cache)

    def settled(self, unit: TrialUnit, kept: dict[str, str]) -> bool:
        """Whether the replies kept so far fail the trial whatever would have followed: a call whose arguments
        cannot be read fails under every oracle (task_defs/trials/grading.py). A regrade grades an exchange our own
        code cut short only then (sandbox/engine/replayed_chat.py)."""
        if REPLY not in kept:
            return False
        answer = answer_of(json_value(kept[REPLY]), unit.trial.tools)
        return any(c.arguments is None for c in answer.calls)

    def grade_kept(self, unit: TrialUnit, kept: dict[str, str], scratch: Path, cfg: IsolationConfig,
                   log_path: Path | None) -> Verdict:
        if REPLY not in kept:
            return Verdict("nofile", "no reply was kept", 0.0)
        try:  # an older record's exchange was written by json.dumps
            exchange = json_value(kept[REPLY])
        except ValueError:
            return Verdict("nofile", "the kept reply is not readable", 0.0)
        answer = answer_of(exchange, unit.trial.tools, unit.trial)
        shell = SandboxShell(scratch, cfg)
        v, heap_peak = graded(unit.trial, answer, CachedShell(shell, self.cache) if self.cache else shell, self.heap)
        mode = exchange.get("mode") or "text"
        refused = [r for r in replies_of(exchange) if r.get("finish") == "refused"]
        cause = "refused" if refused and not v.passed else v.cause
        outcome = "pass" if v.passed else "timeout" if cause == "timeout" else "wrong"  # a safety stop is no verdict
        return Verdict(outcome, v.detail or cause or "", 0.0, extra={"trial": {
            "family": unit.family.id, "grade": unit.grade, "oracle": unit.trial.oracle.kind,
            "score": v.score, "cause": cause, "forms": sorted({c.form for c in answer.calls}),
            "response_format": mode if format_of(unit.trial, mode)[0] else "text",
            "rounds": len(replies_of(exchange)), "elicitation": self.elicitation.get(mode),
            "shape": answer_shape(unit.trial), "rules": self.rules, "oracle_ms": v.oracle_ms,
            "heap_peak_bytes": heap_peak}},
            output=f"{unit.id}: {'pass' if v.passed else 'fail'} (score {v.score:.3f}) {cause or ''} {v.detail}\n")


class TrialPersona:
    """Answers the tool-use trials (suite "trials"): oracle with each trial's reference answer (its calls all at once,
    then words once their results are in; its label, as the JSON object asked for when a format is asked; its
    JSON), null with a bare `{}`, which every trial must fail."""

    def __init__(self, name: str):
        from task_defs.trials.loader import normalise, normalised_prompt

        self.name = name
        self._normalise = normalise
        self._by_prompt = {normalised_prompt(u.trial): u.trial for u in ToolTrials().units}

    def respond(self, conv: Conversation) -> Reply:
        from task_defs.trials.grading import reference_answer

        users = conv.texts("user")
        trial = self._by_prompt.get(self._normalise(users[-1])) if users else None
        if self.name == "null":
            return Reply("{}", note="null: a bare {}")
        if trial is None:
            return Reply("No trial matches this prompt (scripted).", note="no trial matches the prompt")
        if conv.assistant_turns:
            return Reply("Done.", note=f"{trial.id}: the calls' results are in")
        ref = reference_answer(trial)
        calls = tuple(ToolCall(f"call_{i}", c.name, c.arguments or {}) for i, c in enumerate(ref.calls))
        text = ref.text
        if conv.response_format and trial.oracle.kind == "label":
            text = json.dumps({"label": ref.text})
        return Reply(None if calls else text, calls, note=f"{trial.id}: the reference answer")
