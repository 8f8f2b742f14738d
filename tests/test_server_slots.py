"""Sessions at once against one model server, counted across runs: two runs aimed at a two-slot server never
have more than two requests in flight; a killed holder frees its slot; the server's own /props count is used
when none is given; and the manifest records the limit that applied."""

import contextlib
import json
import subprocess
import sys
import threading
import time
from dataclasses import replace

import pytest
from bundled import SUITE

from kbench_dagster import service
from kbench_dagster.run_settings import settings_of
from sandbox.engine.attempt_reader import records_of
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.slots import ServerSlots
from sandbox.engine.spec import RunSpec
from sandbox.servers.probe import reported_slots
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select

TASKS = "fizz,clamp,hellosh,wordfreq"


def spec_for(srv, tmp_path, run_id, **kw) -> RunSpec:
    return RunSpec(run_id=run_id, model=srv.model_id, conds=select_conditions("base"), tasks=select(SUITE, TASKS),
                   url=srv.url, agent="builtin", runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                   workers=2, timeout_s=120, slots_root=tmp_path / "slots", **kw)


def run_both(specs) -> list[list[dict]]:
    results = [[] for _ in specs]
    errors = []

    def go(i, spec):
        try:
            Scheduler(spec, SUITE, on_result=results[i].append).run()
        except Exception as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(i, s)) for i, s in enumerate(specs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    return results


def test_two_runs_share_the_servers_slots(tmp_path):
    # The server itself takes any number at once: only our slots can keep the count at two.
    with ScriptedServer(persona="oracle", port=0, latency=0.15) as srv:
        results = run_both([spec_for(srv, tmp_path, "a", server_slots=2), spec_for(srv, tmp_path, "b", server_slots=2)])
        peak = srv.max_in_flight
    assert [len(r) for r in results] == [4, 4]
    assert all(r["outcome"] == "pass" for rs in results for r in rs)
    assert peak == 2, f"{peak} requests were in flight at once against a two-slot server"
    manifest = json.loads((tmp_path / "runs" / "a" / "manifest.json").read_text())
    assert manifest["settings"]["server_slots"] == 2


def test_without_shared_slots_the_two_runs_overlap(tmp_path):
    """The control for the test above: the same two runs with no shared limit do exceed two at once."""
    with ScriptedServer(persona="oracle", port=0, latency=0.15) as srv:
        run_both([spec_for(srv, tmp_path, "a", server_slots=0), spec_for(srv, tmp_path, "b", server_slots=0)])
        assert srv.max_in_flight > 2


def test_the_servers_reported_slots_are_used_when_none_is_given(tmp_path):
    with ScriptedServer(persona="oracle", port=0, slots=3) as srv:
        assert reported_slots(srv.url) == 3
        Scheduler(spec_for(srv, tmp_path, "auto"), SUITE).run()
    manifest = json.loads((tmp_path / "runs" / "auto" / "manifest.json").read_text())
    assert manifest["settings"]["server_slots"] == 3
    with ScriptedServer(persona="oracle", port=0) as srv:  # a server that says nothing: one session at a time
        assert reported_slots(srv.url) is None
        Scheduler(spec_for(srv, tmp_path, "none"), SUITE).run()
        assert srv.max_in_flight == 1
    assert json.loads((tmp_path / "runs" / "none" / "manifest.json").read_text())["settings"]["server_slots"] == 1


HOLDER = """
import sys, time
from pathlib import Path
from sandbox.engine.slots import ServerSlots
with ServerSlots(sys.argv[1], 1, Path(sys.argv[2])).lease():
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_killed_holder_frees_its_slot(tmp_path):
    url = "http://127.0.0.1:9/v1"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, url, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        slots = ServerSlots(url, 1, tmp_path)
        assert slots.busy() == 1
        got = []

        def take():
            with slots.lease() as (i, waited):
                got.append((i, waited))

        t = threading.Thread(target=take)
        t.start()
        time.sleep(0.5)
        assert not got, "the slot was handed out while its holder was alive"
        holder.kill()
        t.join(10)
        assert got and got[0][0] == 0 and got[0][1] >= 0.5
        assert slots.busy() == 0
    finally:
        holder.kill()
        holder.wait()


def test_one_server_one_set_of_slots_whatever_the_spelling(tmp_path):
    a = ServerSlots("http://127.0.0.1:8093/v1", 1, tmp_path)
    b = ServerSlots("HTTP://127.0.0.1:8093/", 1, tmp_path)
    other = ServerSlots("http://127.0.0.1:8094/v1", 1, tmp_path)
    assert a.folder == b.folder != other.folder
    with a.lease():
        assert b.busy() == 1 and other.busy() == 0


def test_a_slots_folder_that_is_not_ours_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "root").symlink_to(elsewhere)
    slots = ServerSlots("http://127.0.0.1:8093/v1", 1, tmp_path / "root")
    with pytest.raises(RuntimeError, match="not a folder of this user.*KBENCH_SLOTS_DIR"):
        with slots.lease():
            pass
    assert list(elsewhere.iterdir()) == []


def test_a_request_queued_behind_the_clients_own_counts_from_when_the_server_could_start(tmp_path):
    """One slot and a queue of one: the second request waits at the server until the first ends, and that end is
    when its time to first token starts; a third would wait for a lease."""
    slots = ServerSlots("http://127.0.0.1:9/v1", 1, tmp_path / "slots", queue=1)
    with contextlib.ExitStack() as stack:
        first, _ = stack.enter_context(slots.request())
        assert not first.queued and first.start_time() == first.sent
        with slots.request() as (second, _):
            assert second.queued and second.started is None
            assert slots.busy() == 2
            stack.close()  # the first request ends
            assert second.started is not None and second.started >= second.sent
            assert second.start_time() == second.started
        with slots.request() as (third, _):  # nothing in flight: it starts at once
            assert not third.queued


def test_a_queued_request_whose_reply_came_first_was_never_queued(tmp_path):
    slots = ServerSlots("http://127.0.0.1:9/v1", 1, tmp_path / "slots", queue=1)
    with slots.request() as (_first, _):
        with slots.request() as (second, _):
            assert second.queued
        assert second.started == second.sent  # it ended while the first was still in flight


def test_chat_requests_may_wait_one_deep_at_the_server_and_agent_sessions_never(tmp_path):
    with ScriptedServer("oracle", suite="trials", port=0, slots=1, latency=0.5) as srv:
        settings = settings_of(run_id="q", model=srv.model_id, url=srv.url, agent="api", suite="trials",
                               tasks="", conds="base", workers=4, runs_root=str(tmp_path / "runs"),
                               work_root=str(tmp_path / "work"))
        spec, kind = service.build_spec(settings)
        spec = replace(spec, tasks=spec.tasks[:12], slots_root=tmp_path / "slots")
        results = []
        Scheduler(spec, kind, on_result=results.append).run()
        # one at work and others waiting for it; how many the server counts as waiting at one instant can pass the
        # client's one (the server lets its slot go a little after the client has read the whole reply), so the
        # client's own bound is the lease test's above
        assert srv.max_in_flight == 1 and srv.max_queued >= 1
    assert {r["outcome"] for r in results} == {"pass"}
    manifest = json.loads((tmp_path / "runs" / "q" / "manifest.json").read_text())
    assert manifest["settings"]["server_slots"] == 1 and manifest["settings"]["server_queue"] == 1
    speeds = [e for r in records_of(tmp_path / "runs" / "q") for e in r.events() if e["type"] == "speed"]
    assert len(speeds) >= 12 and all(s["queued_s"] is not None and s["queued_s"] >= 0 for s in speeds)
    assert any(s["queued_s"] > 0 for s in speeds)
