"""A toy chat kind, defined here alone (tests/test_new_kind.py registers it in one line): sums asked through the chat
API, each reply graded as a whole number, one row per reply in a table of its own, scripted oracle and null."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from sandbox.engine.kinds import Verdict
from sandbox.engine.registry import KindCard, RowSource, named_personas
from sandbox.servers.scripted.personas import Conversation, Reply

NAME = "toy-chat"
REPLY = "reply.txt"
SUMS = {"small": (2, 3), "carry": (48, 57), "negative": (-7, 4), "large": (123456, 654321)}
NUMBER = re.compile(r"-?\d{1,24}")


@dataclass(frozen=True)
class Sum:
    id: str
    a: int
    b: int

    @property
    def prompt(self) -> str:
        return f"What is {self.a} + {self.b}? Reply with the number only."


class ToySums:
    name = NAME
    runs_agent = False

    def __init__(self):
        self._units = [Sum(k, a, b) for k, (a, b) in SUMS.items()]
        self.fingerprint = hashlib.sha256(repr(SUMS).encode()).hexdigest()

    @property
    def units(self) -> list[Sum]:
        return list(self._units)

    def get(self, unit_id: str) -> Sum:
        for u in self._units:
            if u.id == unit_id:
                return u
        raise KeyError(f"no sum {unit_id!r}; known: {', '.join(SUMS)}")

    def unit_fields(self, unit: Sum) -> dict:
        return {"category": "sums", "tier": "toy"}

    def missing(self, unit: Sum) -> list[str]:
        return []

    def timeout_s(self, unit: Sum, run_timeout_s: float) -> float:
        return min(run_timeout_s, 60.0)

    def execute(self, unit: Sum, chat, kept: dict[str, str]) -> None:
        kept[REPLY] = chat.ask([{"role": "user", "content": unit.prompt}]).content or ""

    def grade_kept(self, unit: Sum, kept: dict[str, str], scratch: Path, cfg, log_path) -> Verdict:
        if REPLY not in kept:
            return Verdict("nofile", "no reply was kept", 0.0)
        text = kept[REPLY].strip()[:64]  # bounded: a reply of any size is read as its first characters
        right = NUMBER.fullmatch(text) is not None and int(text) == unit.a + unit.b
        return Verdict("pass" if right else "wrong", f"replied {text!r}", 0.0,
                       extra={"toy": {"answer": text, "expected": unit.a + unit.b}})


def rows(src: RowSource) -> dict[str, list[dict]]:
    r, toy = src.result, src.result.get("toy") or {}
    return {"toy_chat_results": [{**{c: r.get(c) for c in ("run_id", "model", "condition", "seed", "outcome",
                                                             "suite_fingerprint", "graded_at")},
                                  "item": r["task"], "answer": toy.get("answer"), "expected": toy.get("expected")}]}


def board_page(store, out: Path) -> None:
    from kbench_dagster.reporting.board_html import esc, page

    _, got = store.query("SELECT model, count(*) FILTER (WHERE outcome = 'pass'), count(*) FROM toy_chat_results "
                         "GROUP BY model ORDER BY model")
    body = "<table><tr><th class=l>model</th><th>right</th><th>asked</th></tr>" + "".join(
        f"<tr><td class=l>{esc(m)}</td><td>{right}</td><td>{n}</td></tr>" for m, right, n in got) + "</table>"
    (out / "toy-chat.html").write_text(page("Toy sums", body))


class SumPersona:
    """oracle: every sum right; null: a reply that is no number."""

    def __init__(self, name: str):
        self.name = name

    def respond(self, conv: Conversation) -> Reply:
        found = re.search(r"What is (-?\d+) \+ (-?\d+)\?", conv.first_user_text)
        if self.name == "null" or not found:
            return Reply("I would rather not say.", note="null")
        return Reply(str(int(found.group(1)) + int(found.group(2))), note="the sum")


CARD = KindCard(name=NAME, table="toy_chat_results", make=lambda suite: ToySums(), rows=rows,
                personas=named_personas("toy_chat_kind:SumPersona", "oracle", "null"),
                board="toy_chat_kind:board_page", board_menu=(("Toy sums", "toy-chat.html"),),
                columns={"run_id": "VARCHAR", "model": "VARCHAR", "condition": "VARCHAR", "seed": "INTEGER",
                         "item": "VARCHAR", "outcome": "VARCHAR", "answer": "VARCHAR", "expected": "BIGINT",
                         "suite_fingerprint": "VARCHAR", "graded_at": "TIMESTAMP"})
