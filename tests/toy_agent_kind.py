"""A toy agent kind, defined here alone (tests/test_new_kind.py registers it in one line): the run's agent writes one
word into answer.txt in its sandboxed folder; the judge reads that file without following a link, one row per
attempt in a table of its own; scripted oracle (writes the word) and null (writes nothing)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from sandbox.engine.kinds import Verdict
from sandbox.engine.registry import KindCard, RowSource, named_personas
from sandbox.isolation.workdirs import fresh_dir
from sandbox.judge.files import NotReadable, read_agent_text
from sandbox.servers.scripted.personas import ORACLE_DONE, Conversation, Reply, tool_reply

NAME = "toy-agent"
ANSWER = "answer.txt"
WORDS = {"first": "lantern", "second": "harbour", "third": "quartz"}


@dataclass(frozen=True)
class WordTask:
    id: str
    word: str

    @property
    def prompt(self) -> str:
        return f"Write the single word {self.word} into the file {ANSWER} in the current folder, then stop."


class ToyWords:
    name = NAME
    runs_agent = True

    def __init__(self):
        self._units = [WordTask(k, w) for k, w in WORDS.items()]
        self.fingerprint = hashlib.sha256(repr(WORDS).encode()).hexdigest()

    @property
    def units(self) -> list[WordTask]:
        return list(self._units)

    def get(self, unit_id: str) -> WordTask:
        for u in self._units:
            if u.id == unit_id:
                return u
        raise KeyError(f"no word task {unit_id!r}; known: {', '.join(WORDS)}")

    def unit_fields(self, unit: WordTask) -> dict:
        return {"category": "words", "tier": "toy"}

    def missing(self, unit: WordTask) -> list[str]:
        return []

    def prepare(self, unit: WordTask, workdir: Path, cfg) -> None:
        fresh_dir(workdir)

    def prompts(self, unit: WordTask) -> list[str]:
        return [unit.prompt]

    def session_isolation(self, unit: WordTask, cfg):
        return cfg

    def timeout_s(self, unit: WordTask, run_timeout_s: float) -> float:
        return min(run_timeout_s, 120.0)

    def grade(self, unit: WordTask, workdir: Path, output_path: Path, cfg, log_path) -> Verdict:
        try:  # the judge's reader: no link followed, at most a few bytes, a refusal is the agent's missing file
            text = read_agent_text(workdir, ANSWER, max_bytes=256).strip()
        except NotReadable as exc:
            output_path.write_text(f"{ANSWER}: {exc}\n")
            return Verdict("nofile", f"{ANSWER} is missing or not a plain file", 0.0,
                           extra={"toy": {"answer": None, "expected": unit.word}})
        right = text == unit.word
        output_path.write_text(f"{ANSWER} holds {text!r}; expected {unit.word!r}\n")
        return Verdict("pass" if right else "wrong", f"wrote {text[:40]!r}", 0.0,
                       extra={"toy": {"answer": text[:40], "expected": unit.word}})


def rows(src: RowSource) -> dict[str, list[dict]]:
    r, toy = src.result, src.result.get("toy") or {}
    return {"toy_agent_results": [{**{c: r.get(c) for c in ("run_id", "model", "agent", "condition", "seed",
                                                              "outcome", "turns", "suite_fingerprint", "graded_at")},
                                   "task": r["task"], "answer": toy.get("answer"), "expected": toy.get("expected")}]}


def board_page(store, out: Path) -> None:
    from kbench_dagster.reporting.board_html import esc, page

    _, got = store.query("SELECT model, agent, count(*) FILTER (WHERE outcome = 'pass'), count(*) "
                         "FROM toy_agent_results GROUP BY model, agent ORDER BY model, agent")
    body = "<table><tr><th class=l>model</th><th class=l>agent</th><th>written</th><th>asked</th></tr>" + "".join(
        f"<tr><td class=l>{esc(m)}</td><td class=l>{esc(a)}</td><td>{right}</td><td>{n}</td></tr>"
        for m, a, right, n in got) + "</table>"
    (out / "toy-agent.html").write_text(page("Toy words", body))


class WordPersona:
    """oracle: writes the word with the agent's write tool, then says it is done; null: writes nothing."""

    def __init__(self, name: str):
        self.name = name

    def respond(self, conv: Conversation) -> Reply:
        found = re.search(r"Write the single word (\w+) into the file", conv.first_user_text)
        if self.name == "null" or not found:
            return Reply("I will leave the folder as it is.", note="null")
        if conv.assistant_turns == 0:
            return tool_reply(0, "write", {"path": ANSWER, "content": found.group(1) + "\n"}, note="the word")
        return Reply(ORACLE_DONE, note="done")


CARD = KindCard(name=NAME, table="toy_agent_results", make=lambda suite: ToyWords(), rows=rows,
                personas=named_personas("toy_agent_kind:WordPersona", "oracle", "null"),
                board="toy_agent_kind:board_page", board_menu=(("Toy words", "toy-agent.html"),),
                columns={"run_id": "VARCHAR", "model": "VARCHAR", "agent": "VARCHAR", "condition": "VARCHAR",
                         "seed": "INTEGER", "task": "VARCHAR", "outcome": "VARCHAR", "turns": "INTEGER",
                         "answer": "VARCHAR", "expected": "VARCHAR", "suite_fingerprint": "VARCHAR",
                         "graded_at": "TIMESTAMP"})
