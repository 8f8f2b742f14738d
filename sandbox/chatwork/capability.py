"""The capability suite's chat items as a kind of work: each item is one attempt, its prompt (or its scripted
conversation, turn by turn) asked through a ChatSession, the replies kept in the attempt's record and graded.

Grading: fields, structured and constraints over the reply's text, in-process (task_defs/capability/checks.py);
kbtest by laying the item's files and the reply's code in the attempt's scratch folder and running the hidden test in
our sandbox, the reply's code in a process apart from the judge (sandbox/tasks/grading.py), each case a check;
judge items by the judge (sandbox/chatwork/judge.py) when a judge endpoint is given, else `pending`: asked and kept,
not graded, never counted as 0 or 1, and a regrade with a judge grades them. A judge that fails on an item (no
answer in its form after its retries, or unreachable) leaves it `judge_failed`: not graded either, counted apart.
A short reply that declines is a refusal: no check passes, and the scoring counts it apart
(task_defs/capability/scoring.py).

The agent categories (agentic, repo_patch, ci_repair) are task fixtures run by the agent kind, not here.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from sandbox.chatwork.capability_card import NAME
from sandbox.chatwork.judge import JudgeFailed
from sandbox.engine.chat import ChatSession
from sandbox.engine.kinds import Verdict
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.workdirs import fresh_dir
from sandbox.judge.kbtest_lines import judge_cases
from sandbox.judge.parse import Refused, bounded_json
from sandbox.servers.scripted.personas import Conversation, Reply, ToolCall
from sandbox.tasks.grading import run_hidden_test
from task_defs.capability.checks import CheckResult, fenced, grade_text, score_of
from task_defs.capability.context import prompt_text
from task_defs.capability.loader import fingerprint, load_categories
from task_defs.capability.models import AGENT, Item, JudgeGrader, KbtestGrader
from task_defs.vocabulary import JUDGE_FAILED

REPLIES = "replies.json"
TIMEOUT_S = 300.0  # a safety stop for one item's conversation: its outcome is timeout, never wrong
TEST_TIMEOUT_S = 60.0
REFUSAL = re.compile(r"\b(i am not able to|i'm not able to|i can(?:no|')t (?:help|assist|do|comply|provide)|"
                     r"i won't|i will not|unable to (?:help|assist|comply)|as an ai\b)", re.I)
REFUSAL_MAX_CHARS = 300


def is_refusal(reply: str) -> bool:
    """A short reply that declines the request (a long one that mentions it cannot do one part is an answer)."""
    text = reply.strip()
    return len(text) <= REFUSAL_MAX_CHARS and REFUSAL.search(text) is not None


@dataclass(frozen=True)
class CapabilityUnit:
    category: str
    item: Item

    @property
    def id(self) -> str:
        return self.item.id


class CapabilityItems:
    name = NAME
    runs_agent = False

    def __init__(self, root: Path | None = None, context_tokens: int | None = None, judge=None,
                 latency_budget_s: float | None = None):
        """`context_tokens`: the endpoint's context window, which sizes the long-context documents (None: the
        default of task_defs/capability/context.py). `judge`: a JudgePanel (sandbox/chatwork/judge_panel.py) or None.
        `latency_budget_s`: the seconds a reply may take to count in usability, kept with the replies so a regrade
        keeps it (None: no budget)."""
        self.categories = load_categories(root)
        self.context_tokens = context_tokens
        self.latency_budget_s = latency_budget_s
        self.judge = judge
        self.fingerprint = fingerprint(root)
        self._units = [CapabilityUnit(doc.category, item) for doc, _ in self.categories
                       if doc.category not in AGENT for item in doc.items]
        self._by_id = {u.id: u for u in self._units}

    @property
    def units(self) -> list[CapabilityUnit]:
        return list(self._units)

    def get(self, unit_id: str) -> CapabilityUnit:
        if unit_id not in self._by_id:
            raise KeyError(f"no capability item {unit_id!r} (`kbench capability list` names them)")
        return self._by_id[unit_id]

    def select(self, only: str | None = None, limit: int | None = None) -> list[CapabilityUnit]:
        """The items of the categories named in `only` (all when None), the first `limit` of each."""
        names = [n.strip() for n in (only or "").split(",") if n.strip()]
        known = sorted({u.category for u in self._units})
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"--only: unknown or agent-worked category {', '.join(unknown)}; the chat categories "
                             f"are {', '.join(known)}")
        if limit is not None and limit < 1:
            raise ValueError("--limit must be a positive number of items per category")
        out, count = [], {}
        for u in self._units:
            if (not names or u.category in names) and count.get(u.category, 0) < (limit or len(self._units)):
                count[u.category] = count.get(u.category, 0) + 1
                out.append(u)
        return out

    def unit_fields(self, unit: CapabilityUnit) -> dict:
        return {"category": unit.category, "tier": unit.item.tier}

    def missing(self, unit: CapabilityUnit) -> list[str]:
        return []

    def prompts(self, unit: CapabilityUnit) -> list[str]:
        return [prompt_text(p, unit.item.context, self.context_tokens) for p in unit.item.prompts]

    def timeout_s(self, unit: CapabilityUnit, run_timeout_s: float) -> float:
        return min(run_timeout_s, TIMEOUT_S)

    def execute(self, unit: CapabilityUnit, chat: ChatSession, kept: dict[str, str]) -> None:
        """Each turn after the replies to the ones before, so a later turn can build on them; the replies are
        kept as they come, so a conversation cut short keeps what it got."""
        messages, replies = [], []
        for prompt in self.prompts(unit):
            messages.append({"role": "user", "content": prompt})
            reply = chat.ask(messages, tools=unit.item.tools or None)
            messages.append({"role": "assistant", "content": reply.content})
            replies.append(calls_reply(reply.content, reply.tool_calls) if unit.item.tools else reply.content)
            kept[REPLIES] = json.dumps({"replies": replies, "context_tokens": self.context_tokens,
                                        "latency_budget_s": self.latency_budget_s})

    def grade_kept(self, unit: CapabilityUnit, kept: dict[str, str], scratch: Path, cfg: IsolationConfig,
                   log_path: Path | None) -> Verdict:
        doc = json.loads(kept[REPLIES]) if REPLIES in kept else {}
        replies = doc.get("replies") or []
        if len(replies) < len(unit.item.prompts):
            return Verdict("nofile", f"{len(replies)} of {len(unit.item.prompts)} replies were kept", 0.0)
        final = replies[-1]
        g = unit.item.grader
        refusal = is_refusal(final)
        judge_votes = None
        test_output = ""
        if refusal:
            checks = [CheckResult(n, w, False, "refused") for n, w in check_names(unit.item)]
        elif isinstance(g, JudgeGrader):
            if self.judge is None:
                return Verdict("pending", "not graded: no judge was given (--judge MODEL@URL)", 0.0,
                               extra=self._extra(unit, [], None, False, doc),
                               output=f"{unit.id}: not graded: no judge (--judge MODEL@URL)\n")
            try:
                checks, judge_votes = self.judge.grade(unit.item, replies)
            except JudgeFailed as exc:  # the judge's trouble, not the model's: shown apart, asked again by a regrade
                return Verdict(JUDGE_FAILED, f"not graded: the judge failed: {exc}"[:500], 0.0,
                               extra=self._extra(unit, [], None, False, doc),
                               output=f"{unit.id}: not graded: the judge failed: {exc}\n")
        elif isinstance(g, KbtestGrader):
            out = scratch / "tests.txt"
            checks, test_outcome = run_kbtest(unit.item, final, scratch / "graded", out, cfg, log_path)
            test_output = out.read_text(encoding="utf-8", errors="replace") if out.is_file() else ""
            if test_outcome == "timeout":  # a safety stop: never a wrong answer (and 0 in usability)
                return Verdict("timeout", "the hidden test ran past its time limit (a safety stop)", 0.0,
                               extra=self._extra(unit, checks, None, False, doc, score_of(checks)),
                               output=test_output)
        else:
            checks = grade_text(g, final, raw=bool(unit.item.tools))
        score = 0.0 if refusal else score_of(checks)
        passed = score == 1.0
        failed = [c for c in checks if not c.passed]
        detail = "refused" if refusal else "full marks" if passed else \
            f"score {score:.2f}; failed: " + "; ".join(f"{c.name} ({c.note})" if c.note else c.name for c in failed)
        output = test_output if isinstance(g, KbtestGrader) else f"{unit.id}: {detail}\n" + "".join(
            f"{'PASS' if c.passed else 'FAIL'} {c.name} (weight {c.weight:g}) {c.note}\n" for c in checks)
        return Verdict("pass" if passed else "wrong", detail[:500], 0.0,
                       extra=self._extra(unit, checks, judge_votes, refusal, doc, score), output=output)

    def _extra(self, unit, checks, votes, refusal, kept, score=None) -> dict:
        return {"capability": {"category": unit.category, "item": unit.id, "tier": unit.item.tier,
                               "grader": unit.item.grader.kind, "score": score, "refusal": refusal,
                               "checks": [c.to_dict() for c in checks], "judge": votes,
                               "context_tokens": kept.get("context_tokens"),
                               "latency_budget_s": kept.get("latency_budget_s")}}


def calls_reply(content: str, calls: list[dict]) -> str:
    """A reply to a request that offered tools, as the JSON its grader reads: the calls (name and arguments,
    arguments that are not JSON kept as their text) and the words."""
    out = []
    for c in calls:
        fn = c.get("function", c)
        args = fn.get("arguments")
        if isinstance(args, str):
            try:  # bounded: arguments nested past the judge's depth stay text, graded as the model's wrong call
                args = bounded_json(args)
            except Refused:
                pass
        out.append({"name": fn.get("name"), "arguments": args})
    return json.dumps({"calls": out, "content": content or ""}, ensure_ascii=False)


def check_names(item: Item) -> list[tuple[str, float]]:
    """Each check of the item's grader by name, with its weight."""
    g = item.grader
    if isinstance(g, KbtestGrader):
        return [(name, g.weights.get(name, 1.0)) for name in kbtest_cases(g.test)]
    if isinstance(g, JudgeGrader):
        return [(f"criterion_{i}", 1.0) for i in range(1, len(g.criteria) + 1)]
    names = [(c.name, c.weight) for c in g.checks]
    return ([("schema", 1.0)] if getattr(g, "schema_", None) is not None else []) + names


def kbtest_cases(test: str) -> list[str]:
    """The case functions of a hidden test, in order (each `@kb.case` function)."""
    return re.findall(r"@kb\.case\s*\n\s*def\s+([A-Za-z_][A-Za-z0-9_]*)", test)


def run_kbtest(item: Item, reply: str, folder: Path, output_path: Path, cfg: IsolationConfig | None,
               log_path: Path | None) -> tuple[list[CheckResult], str]:
    """The reply's code in `answer_file` beside the item's files, then the hidden test: each case a check and the
    test's own outcome. A case passes only by the judge's nonce'd case line (sandbox/judge/kbtest_lines.py): the
    `PASS name` lines in the output are the agent's to print too, and a judge that never wrote its result line
    (killed, or dead before the end) passed no case."""
    g = item.grader
    assert isinstance(g, KbtestGrader)
    folder = fresh_dir(folder)
    for rel, text in item.files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    (folder / g.answer_file).write_text(fenced(reply, g.extract) + "\n", encoding="utf-8")
    test = g.test if "kb.main()" in g.test else g.test.rstrip() + "\n\n\nkb.main()\n"
    nonce = secrets.token_hex(16)
    outcome, detail, session = run_hidden_test("test_item.py", {"test_item.py": test.encode()}, folder,
                                               limits=TEST_LIMITS.with_(timeout_s=TEST_TIMEOUT_S), cfg=cfg,
                                               output_path=output_path, log_path=log_path,
                                               label=f"capability:{item.id}", nonce=nonce)
    verdicts = judge_cases(session.tail, nonce)
    return [CheckResult(name, w, verdicts.get(name) == "pass",
                        "" if verdicts.get(name) == "pass" else verdicts.get(name) or f"not reached ({outcome})")
            for name, w in check_names(item)], outcome


class CapabilityPersona:
    """Answers the capability suite's chat items (suite "capability") with each item's reference reply for the
    turn it is at: an item offering tools gets its reference calls as native calls."""

    name = "oracle"

    def __init__(self):
        self._items = [(self._key(u.item.prompts[0]), u.item) for u in CapabilityItems().units]

    @staticmethod
    def _key(prompt: str) -> str:
        # a long-context item is known by its words before the document, which is built for each endpoint
        return " ".join(prompt.split("{document}")[0].split())

    def respond(self, conv: Conversation) -> Reply:
        first = " ".join(conv.first_user_text.split())
        item = next((i for key, i in self._items if first.startswith(key) and (i.context or first == key)), None)
        if item is None:
            return Reply("No capability item matches this prompt (scripted).", note="no item matches the prompt")
        turn = conv.assistant_turns
        refs = item.reference if isinstance(item.reference, list) else [item.reference]
        text = refs[min(turn, len(refs) - 1)]
        if item.tools:
            doc = json.loads(text)
            calls = tuple(ToolCall(f"call_{i}", c["name"], c.get("arguments") or {})
                          for i, c in enumerate(doc.get("calls") or []))
            return Reply(None if calls else doc.get("content") or "", calls, note=f"{item.id}: the reference calls")
        return Reply(text, note=f"{item.id}: the reference, turn {turn + 1}")
