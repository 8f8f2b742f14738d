"""A chat-only kind of work goes through the one run loop: a module implementing WorkKind with execute(), no loop of
its own. The kind here is the smallest possible one (sums asked as questions); the text jobs, tool-use trials and
capability items are built the same way."""

import errno
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbox.engine import attempt_ledger as ledger_module
from sandbox.engine.attempt_ledger import RunLedger
from sandbox.engine.attempt_reader import records_of
from sandbox.engine.chat import ChatSession
from sandbox.engine.conditions import select_conditions
from sandbox.engine.kinds import Verdict
from sandbox.engine.regrade import regrade_run
from sandbox.engine.reply_cache import ReplyCache
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import API_AGENT, RunSpec
from sandbox.engine.stops import DiskFull
from sandbox.servers.scripted import ScriptedServer
from sandbox.servers.scripted.personas import Conversation, Reply
from task_defs import load_suite


@dataclass(frozen=True)
class Sum:
    id: str
    a: int
    b: int


class Sums:
    """Each unit is one question; the reply is kept in reply.txt and graded by exact number."""

    name = "sums"
    runs_agent = False

    def __init__(self, units: list[Sum], key_offset: int = 0):
        self._units = units
        self.key_offset = key_offset  # a changed answer key: the fingerprint moves and old verdicts are stale
        self.fingerprint = hashlib.sha256(repr((units, key_offset)).encode()).hexdigest()

    @property
    def units(self) -> list[Sum]:
        return list(self._units)

    def get(self, unit_id: str) -> Sum:
        return next(u for u in self._units if u.id == unit_id)

    def unit_fields(self, unit: Sum) -> dict:
        return {"category": "arithmetic", "tier": "easy"}

    def missing(self, unit: Sum) -> list[str]:
        return []

    def prompts(self, unit: Sum) -> list[str]:
        return [f"What is {unit.a} + {unit.b}? Answer with the number only."]

    def timeout_s(self, unit: Sum, run_timeout_s: float) -> float:
        return run_timeout_s

    def execute(self, unit: Sum, chat: ChatSession, kept: dict[str, str]) -> None:
        kept["reply.txt"] = chat.ask([{"role": "user", "content": self.prompts(unit)[0]}], max_tokens=16).content

    def grade_kept(self, unit: Sum, kept: dict[str, str], scratch: Path, cfg, log_path) -> Verdict:
        if "reply.txt" not in kept:
            return Verdict("nofile", "no reply was kept", 0.0)
        got = kept["reply.txt"].strip()
        want = str(unit.a + unit.b + self.key_offset)
        return Verdict("pass" if got == want else "wrong", f"expected {want}, got {got!r}", 0.0,
                       output=f"expected {want}, got {got!r}\n")


class Adder:
    """Answers the sum asked in the first user message; gets the ones listed in `wrong` off by one."""

    name = "adder"

    def __init__(self, wrong: tuple[int, ...] = ()):
        self.wrong = wrong

    def respond(self, conv: Conversation) -> Reply:
        a, b = map(int, re.findall(r"-?\d+", conv.first_user_text)[:2])
        return Reply(str(a + b + (a in self.wrong)))


UNITS = [Sum(f"q{i}", i, 10 * i) for i in range(1, 5)]


def spec_for(url, tmp_path, units=UNITS, **kw):
    base = dict(run_id="sums-run", model="scripted-adder", conds=select_conditions("base"), tasks=units, url=url,
                agent=API_AGENT, runs_root=tmp_path / "runs", work_root=tmp_path / "work", workers=2,
                timeout_s=30, server_wait_s=5)
    return RunSpec(**{**base, **kw})


def record_of(tmp_path, key):
    return next(r for r in records_of(tmp_path / "runs" / "sums-run") if r.key == key)


def test_a_chat_only_kind_runs_records_and_resumes_through_the_one_loop(tmp_path):
    results = []
    with ScriptedServer(persona=Adder(wrong=(3,)), port=0, slots=2) as srv:
        spec = spec_for(srv.url, tmp_path, seeds=2)
        summary = Scheduler(spec, Sums(UNITS), on_result=results.append).run()
        again = Scheduler(spec, Sums(UNITS)).run()
    assert summary == {"planned": 8, "already_done": 0, "ran": 8}
    assert again == {"planned": 8, "already_done": 8, "ran": 0}
    outcomes = {(r["task"], r["seed"]): r["outcome"] for r in results}
    assert outcomes == {(u.id, s): ("wrong" if u.id == "q3" else "pass") for u in UNITS for s in (1, 2)}
    record = record_of(tmp_path, "base/q3/s1")
    r = record.result()
    assert (r["kind"], r["agent"], r["category"], r["infra"], r["turns"]) == ("sums", "api", "arithmetic", False, 1)
    assert r["detail"] == "expected 33, got '34'" and r["input_tokens"] > 0 and r["output_tokens"] > 0
    assert {"setup_s", "server_wait_s", "slot_wait_s", "agent_s", "test_s", "record_s"} <= set(r["stages"])
    assert record.file_text("reply.txt", 100) == "34" and record.tests().startswith("expected 33")
    # one line of the run's ledger per attempt, no folder per attempt, and the scratch folders gone
    assert len(RunLedger(tmp_path / "runs" / "sums-run").entries()) == 8
    assert not (tmp_path / "runs" / "sums-run" / "base").exists()
    assert not [p for p in (tmp_path / "work").rglob("*") if p.is_file()]
    events = record.events()
    assert [e["type"] for e in events] == ["request", "reply", "speed"]  # the reply as the wire timed it
    assert events[2]["completion_tokens"] == r["output_tokens"] and events[2]["stream"] is True
    assert events[0]["messages"][0]["content"].startswith("What is 3 + 30?")
    manifest = json.loads((tmp_path / "runs" / "sums-run" / "manifest.json").read_text())
    assert manifest["settings"]["agent"] == "api" and manifest["suite"]["name"] == "sums"
    assert manifest["settings"]["server_slots"] == 2  # the server's /props: chat requests share its slots too


def test_server_trouble_in_a_chat_attempt_is_infra_never_a_wrong_answer(tmp_path):
    results = []
    with ScriptedServer(persona="chaos", port=0, chaos_delay=0.0, chaos_kinds=("http_500", "reset", "bad_json")) as srv:
        Scheduler(spec_for(srv.url, tmp_path, units=UNITS[:2], workers=1), Sums(UNITS[:2]),
               on_result=results.append).run()
    assert [r["outcome"] for r in results] == ["infra", "infra"]
    assert all(r["infra"] and r["requeues"] == 5 and r["infra_error"] for r in results)
    tries = record_of(tmp_path, "base/q1/s1").requeued()
    assert len(tries) == 5 and all(any(e["type"] == "requeue" for e in t) for t in tries)


def test_a_chat_attempt_out_of_time_is_a_timeout_not_a_wrong_answer(tmp_path):
    results = []
    with ScriptedServer(persona=Adder(), port=0, latency=3.0) as srv:
        Scheduler(spec_for(srv.url, tmp_path, units=UNITS[:1], timeout_s=0.5), Sums(UNITS[:1]),
               on_result=results.append).run()
    (r,) = results
    assert (r["outcome"], r["agent_timeout"], r["infra"]) == ("timeout", True, False)


def test_a_changed_answer_key_regrades_the_kept_replies_without_asking_again(tmp_path):
    with ScriptedServer(persona=Adder(), port=0) as srv:
        Scheduler(spec_for(srv.url, tmp_path), Sums(UNITS)).run()
        asked = srv.chat_requests
    changed = Sums(UNITS, key_offset=1)
    summary = regrade_run(tmp_path / "runs" / "sums-run", changed, tmp_path / "work", spec_for("", tmp_path).isolation)
    assert sorted(summary.regraded) == [f"base/{u.id}/s1" for u in UNITS] and asked == 4
    for u in UNITS:
        r = record_of(tmp_path, f"base/{u.id}/s1").result()
        assert (r["outcome"], r["suite_fingerprint"], r["regraded"]) == ("wrong", changed.fingerprint, True)
    again = regrade_run(tmp_path / "runs" / "sums-run", changed, tmp_path / "work", spec_for("", tmp_path).isolation)
    assert not again.regraded and again.current == 4  # the regrading lines are read back as the current verdict


def test_the_agent_setting_must_fit_the_kind(tmp_path):
    with pytest.raises(ValueError, match="asks the server directly"):
        Scheduler(spec_for("http://127.0.0.1:9/v1", tmp_path, agent="builtin"), Sums(UNITS)).run()
    suite = load_suite("kbench")
    with pytest.raises(ValueError, match="done by an agent"):
        Scheduler(spec_for("http://127.0.0.1:9/v1", tmp_path, tasks=suite.tasks[:1]), suite).run()


def test_a_torn_last_ledger_line_is_redone_and_never_swallows_the_next(tmp_path):
    """A kill mid-write leaves the ledger's last line cut short: that attempt has no result, the rerun redoes it
    alone, and its new line is not glued onto the torn one."""
    with ScriptedServer(persona=Adder(), port=0) as srv:
        spec = spec_for(srv.url, tmp_path)
        Scheduler(spec, Sums(UNITS)).run()
        ledger = RunLedger(tmp_path / "runs" / "sums-run")
        data = ledger.path.read_bytes()
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
        lost = json.loads(last)["key"]
        ledger.path.write_bytes(data[: len(data) - len(last) // 2 - 1])  # half of the last line, no newline
        assert {r.key for r in records_of(ledger.path.parent)} == {f"base/{u.id}/s1" for u in UNITS} - {lost}
        asked = srv.chat_requests
        again = Scheduler(spec, Sums(UNITS)).run()
        assert again == {"planned": 4, "already_done": 3, "ran": 1} and srv.chat_requests == asked + 1
    assert sorted(r.key for r in records_of(ledger.path.parent)) == sorted(f"base/{u.id}/s1" for u in UNITS)
    assert all(r.result()["outcome"] == "pass" for r in records_of(ledger.path.parent))


def test_triage_shows_a_ledger_records_evidence(tmp_path):
    from kbench_dagster.reporting.loaders import load_results
    from kbench_dagster.reporting.triage import render_evidence

    with ScriptedServer(persona=Adder(wrong=(3,)), port=0) as srv:
        Scheduler(spec_for(srv.url, tmp_path), Sums(UNITS)).run()
    text = render_evidence(load_results(tmp_path / "runs", "sums-run"), "q3")
    assert "ledger.jsonl (base/q3/s1)" in text and "expected 33, got '34'" in text
    assert "What is 3 + 30?" in text and "--- reply.txt (2 bytes)\n34" in text


class CachedSums(Sums):
    """Sums whose requests go through a reply cache: a second run id replays them without asking."""

    def __init__(self, units: list[Sum], cache: ReplyCache):
        super().__init__(units)
        self.cache = cache

    def execute(self, unit: Sum, chat: ChatSession, kept: dict[str, str]) -> None:
        kept["reply.txt"] = chat.ask([{"role": "user", "content": self.prompts(unit)[0]}], max_tokens=16,
                                     cache=self.cache).content


def test_a_replay_that_fills_the_disk_stops_as_disk_full_and_the_rerun_keeps_every_attempt(tmp_path, monkeypatch):
    cache = ReplyCache(tmp_path / "cache")
    with ScriptedServer(persona=Adder(), port=0, slots=2) as srv:
        Scheduler(spec_for(srv.url, tmp_path, run_id="first"), CachedSums(UNITS, cache)).run()
        asked = srv.chat_requests

        def full(path, line):
            raise OSError(errno.ENOSPC, "No space left on device")

        with monkeypatch.context() as m:
            m.setattr(ledger_module, "append_line", full)
            with pytest.raises(DiskFull, match="no space left while recording results"):
                Scheduler(spec_for(srv.url, tmp_path, run_id="second"), CachedSums(UNITS, cache)).run()
        assert RunLedger(tmp_path / "runs" / "second").entries() == []  # nothing half-kept
        summary = Scheduler(spec_for(srv.url, tmp_path, run_id="second"), CachedSums(UNITS, cache)).run()
        assert summary == {"planned": 4, "already_done": 0, "ran": 4}
        assert srv.chat_requests == asked  # the rerun replayed every reply from the cache
    results = [r.result() for r in records_of(tmp_path / "runs" / "second")]
    assert sorted(r["task"] for r in results) == ["q1", "q2", "q3", "q4"]
    assert {r["outcome"] for r in results} == {"pass"}
