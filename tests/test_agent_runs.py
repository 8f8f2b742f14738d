"""Agent runs end to end against the scripted server: both agents, every persona, records, resume after a kill."""

import getpass
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bundled import SUITE
from conftest import REPO, kill_mid_run, needs_bwrap, sandbox_processes

from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunConflict, RunSpec
from sandbox.engine.stops import ServerDown
from sandbox.isolation.bwrap import bwrap_path
from sandbox.isolation.uids import pool
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select

HOST_TRAPS = [Path("/etc/kb-hostile"), Path.home() / "kb-hostile"]


def run(srv_url, model, agent, tasks, tmp_path, run_id="r", **kw):
    results = []
    spec = RunSpec(run_id=run_id, model=model, conds=select_conditions(kw.pop("conds", "base")),
                   tasks=select(SUITE, tasks), url=srv_url, agent=agent, runs_root=tmp_path / "runs",
                   work_root=tmp_path / "work", workers=kw.pop("workers", 2), timeout_s=kw.pop("timeout_s", 120), **kw)
    Scheduler(spec, SUITE, on_result=results.append).run()
    return results, tmp_path / "runs" / run_id


# Every way the oracle's reference reaches a folder: plain writes in each category (Python, JavaScript, shell),
# a script run by bash, binary files written through base64, chains of prompts, a task that needs git and zip.
PI_SHAPES = "fizz,lru,fixjs,fixavg,hellosh,gitinit,unzipcount,tarbackup,counterrors_steps,topip_cmd"


def test_pi_drives_every_shape_of_task(tmp_path):
    """pi end to end on one task of each kind of reference plan; the whole suite under pi is `make test-slow`."""
    with ScriptedServer(persona="oracle", port=0) as srv:
        results, _ = run(srv.url, srv.model_id, "pi", PI_SHAPES, tmp_path)
    assert {r["task"]: r["outcome"] for r in results} == {t: "pass" for t in PI_SHAPES.split(",")}
    assert not any(r["false_claim"] or r["tool_format_errors"] or r["infra"] for r in results)


@pytest.mark.parametrize("agent", ["builtin", pytest.param("pi", marks=pytest.mark.slow)])
def test_oracle_passes_every_task(agent, tmp_path):
    with ScriptedServer(persona="oracle", port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, agent, None, tmp_path)
    assert len(results) == 65
    outcomes = {r["task"]: r["outcome"] for r in results}
    skipped = {t for t, o in outcomes.items() if o == "skipped"}
    assert skipped <= {"gpuname"}
    failed = {t: o for t, o in outcomes.items() if o not in ("pass", "skipped")}
    assert failed == {}, failed
    assert not any(r["false_claim"] or r["tool_format_errors"] for r in results)
    assert len(list(run_dir.glob("*/*/s1/result.json"))) == 65


def test_builtin_runs_tool_calls_written_as_text(tmp_path):
    with ScriptedServer(persona="oracle", port=0, tool_format="text") as srv:
        results, _ = run(srv.url, srv.model_id, "builtin", "easy,counterrors", tmp_path, tool_format="auto")
    assert {r["outcome"] for r in results} == {"pass"}
    assert all(r["text_calls"] >= 1 and r["native_calls"] == 0 for r in results)


def test_text_calls_are_format_errors_when_only_native_calls_count(tmp_path):
    with ScriptedServer(persona="oracle", port=0, tool_format="text") as srv:
        results, _ = run(srv.url, srv.model_id, "builtin", "fizz", tmp_path, tool_format="native")
    [r] = results
    assert r["outcome"] == "nofile" and r["tool_format_errors"] == 1 and r["tool_calls"] == 0


def test_builtin_with_constrained_actions(tmp_path):
    """--tool-format constrained: no tools field, every request asks for the action schema and every reply is one
    JSON action; the calls run and the tasks pass as with native calls."""
    with ScriptedServer(persona="oracle", port=0) as srv:
        results, _ = run(srv.url, srv.model_id, "builtin", "easy,counterrors,fixavg", tmp_path,
                         tool_format="constrained")
        assert set(srv.formats_seen) == {"json_schema"}
    assert {r["outcome"] for r in results} == {"pass"}
    assert all(r["tool_calls"] >= 1 and r["native_calls"] == 0 and not r["tool_format_errors"] for r in results)


def test_null_passes_nothing(tmp_path):
    with ScriptedServer(persona="null", port=0) as srv:
        results, _ = run(srv.url, srv.model_id, "builtin", None, tmp_path)
    assert len(results) == 65
    assert not [r["task"] for r in results if r["outcome"] == "pass"]
    assert {r["outcome"] for r in results} <= {"nofile", "wrong", "skipped"}


@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_liar_every_run_is_a_false_claim(agent, tmp_path):
    with ScriptedServer(persona="liar", port=0) as srv:
        results, _ = run(srv.url, srv.model_id, agent, "fizz,fixavg,counterrors,renamejpeg", tmp_path)
    assert len(results) == 4
    assert all(r["false_claim"] and r["outcome"] != "pass" for r in results)


@pytest.mark.parametrize("agent, tasks", [("builtin", "fizz,counterrors"), ("pi", "fizz")])
def test_chaos_ends_as_infra_failures_never_as_model_failures(agent, tasks, tmp_path):
    with ScriptedServer(persona="chaos", port=0, chaos_delay=0.1) as srv:
        results, run_dir = run(srv.url, srv.model_id, agent, tasks, tmp_path)
        requests = srv.chat_requests
    assert {r["outcome"] for r in results} == {"infra"}
    assert all(r["infra"] and r["requeues"] == 5 and r["infra_error"] for r in results)
    assert requests >= 6 * len(results)
    requeued = sorted(p.name for p in run_dir.glob("base/*/s1/requeued/*.events.jsonl"))
    assert len(requeued) == 5 * len(results)


def test_dead_server_is_an_infra_failure(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results, _ = run(f"http://127.0.0.1:{port}/v1", "m", "builtin", "fizz", tmp_path, server_wait_s=0.2)
    [r] = results
    assert r["outcome"] == "infra" and "did not answer" in r["infra_error"]


def test_a_server_down_for_long_stops_the_run_and_the_same_command_finishes_it(tmp_path):
    """Down past server_down_stop_s: no further attempt starts (none is recorded as infra for it), the error says
    what to do; once the server is up, the same run finishes every task once, with its earlier tries counted."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(ServerDown, match=r"run stopped: the server at .* has not answered .* run the same command"):
        run(url, "scripted-oracle", "builtin", "fizz,clamp,hellosh", tmp_path, server_wait_s=0.2,
            server_down_stop_s=0.5, workers=1)
    run_dir = tmp_path / "runs" / "r"
    assert list(run_dir.glob("*/*/s1/result.json")) == []
    tried = list(run_dir.glob("base/*/s1.requeued/*.events.jsonl"))
    assert 1 <= len(tried) < 3 * 5, "stopped long before every attempt used its five requeues"
    with ScriptedServer(persona="oracle", port=port) as srv:
        results, _ = run(srv.url, srv.model_id, "builtin", "fizz,clamp,hellosh", tmp_path, server_wait_s=0.2,
                         server_down_stop_s=0.5)
    assert sorted(r["task"] for r in results) == ["clamp", "fizz", "hellosh"]
    assert all(r["outcome"] == "pass" for r in results)
    assert sum(r["requeues"] for r in results) == len(tried)
    # the triage view of a task that was put back shows each earlier try and why
    from kbench_dagster.reporting.loaders import load_results
    from kbench_dagster.reporting.triage import render_evidence

    task = next(r["task"] for r in results if r["requeues"])
    evidence = render_evidence(load_results(tmp_path / "runs", "r"), task)
    assert "requeued, attempt1: server at " in evidence and "did not answer" in evidence


def _sandbox_uid_processes():
    return pool().strays()


@needs_bwrap
@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_hostile_agent_is_contained(agent, tmp_path):
    with ScriptedServer(persona="hostile", port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, agent, "fizz", tmp_path, timeout_s=120)
    [r] = results
    assert r["outcome"] == "nofile"
    # the watchdogs killed something, or a limit ended the agent itself (pi keeps a full copy of `yes` output
    # in a temp file and meets RLIMIT_FSIZE)
    assert r["watchdog_kills"] > 0 or r["stop_reason"] == "killed"
    assert r["outside_writes"] >= 1
    for trap in HOST_TRAPS + list(Path("/tmp").glob("kb-hostile*")):
        assert not trap.exists(), f"{trap} was written on the host"
    assert not (tmp_path / "work" / "r" / "base" / "fizz" / "kb-hostile-escape").exists()
    assert not sandbox_processes(["sleep", "3600"])
    if os.geteuid() == 0:
        assert _sandbox_uid_processes() == []
    assert subprocess.run(["true"]).returncode == 0
    events = (run_dir / "base" / "fizz" / "s1" / "events.jsonl").read_text()
    assert "task_defs/suites" not in events and "kbench-dagster canary" not in events
    assert "reason=" in (run_dir / "watchdog.log").read_text()


def test_records_and_manifest(tmp_path):
    with ScriptedServer(persona="oracle", port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, "builtin", "fizz", tmp_path, api_key="sk-test-secret")
    rec = run_dir / "base" / "fizz" / "s1"
    result = json.loads((rec / "result.json").read_text())
    for key in ("outcome", "duration_s", "turns", "input_tokens", "output_tokens", "cutoffs", "tool_calls",
                "tool_errors", "tool_format_errors", "watchdog_kills", "outside_writes", "false_claim"):
        assert key in result, key
    assert result["outcome"] == "pass" and result["input_tokens"] > 0 and result["output_tokens"] > 0
    kinds = [json.loads(line)["type"] for line in (rec / "events.jsonl").read_text().splitlines()]
    # each reply is followed by its timing on the wire (sandbox/agents/wire.py)
    assert kinds[:5] == ["prompt", "assistant", "speed", "tool_call", "tool_result"]
    assert kinds[-2:] == ["assistant", "speed"] and kinds.count("speed") == kinds.count("assistant")
    assert "PASS" in (rec / "tests.txt").read_text()
    assert (rec / "workdir" / "fizz.py").read_text() == (SUITE.get("fizz").solution_dir / "fizz.py").read_text()
    text = (run_dir / "manifest.json").read_text()
    manifest = json.loads(text)
    assert manifest["suite"]["fingerprint"] == SUITE.fingerprint
    assert manifest["versions"]["python_sandbox"] and manifest["versions"]["node"]
    assert manifest["server"]["models"]["data"][0]["id"] == srv.model_id
    assert socket.gethostname() not in text and "sk-test-secret" not in text
    if getpass.getuser() != "root":
        assert getpass.getuser() not in text


def test_a_run_id_cannot_be_reused_with_another_model(tmp_path):
    with ScriptedServer(persona="null", port=0) as srv:
        run(srv.url, srv.model_id, "builtin", "fizz", tmp_path)
        with pytest.raises(RunConflict, match="choose a new RUNID"):
            run(srv.url, "another-model", "builtin", "fizz", tmp_path)


def test_kill_mid_run_then_rerun_gives_exactly_one_result_each(tmp_path):
    tasks = "fizz,clamp,rle,flatten,anagram,wordfreq,countlines,slugify,counterrors,wordcount"
    with ScriptedServer(persona="oracle", port=0, latency=0.15) as srv:
        cmd = [sys.executable, "-m", "kbench_dagster.cli", "run", "k", "--model", srv.model_id, "--url", srv.url,
               "--agent", "builtin", "--conds", "base,think", "--tasks", tasks, "--workers", "2",
               "--server-slots", "0", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work")]
        run_dir = tmp_path / "runs" / "k"
        before = kill_mid_run(cmd, run_dir)
        assert 5 <= before < 20, "the kill should land in the middle of the run"
        again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"already done {before}" in again.stderr
    results = sorted(run_dir.glob("*/*/s*/result.json"))
    keys = [str(p.parent.relative_to(run_dir)) for p in results]
    assert len(keys) == len(set(keys)) == 20
    assert not list(run_dir.glob("**/*.partial"))
    assert {json.loads(p.read_text())["outcome"] for p in results} == {"pass"}


@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_a_slow_model_is_an_agent_timeout_not_an_infra_failure(agent, tmp_path):
    with ScriptedServer(persona="oracle", port=0, latency=6) as srv:
        results, _ = run(srv.url, srv.model_id, agent, "fizz", tmp_path, timeout_s=2)
    [r] = results
    assert r["outcome"] == "nofile" and r["agent_timeout"] and not r["infra"]


def test_file_names_that_are_not_utf8_are_recorded(tmp_path):
    """One `touch` makes a name that is not UTF-8 (in the work folder and in the private /tmp); the attempt is still
    recorded, the names shown with \\x escapes, and the store takes the rows."""
    from kbench_dagster.ingest import ingest_run
    from kbench_dagster.store import ResultsStore

    script = tmp_path / "replay.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "touch /tmp/$'\\xff' $'odd\\xfe.txt'; echo ok"}}]},
        {"content": "Done."}]) + "\n")
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, "builtin", "clamp", tmp_path)
    assert [r["outcome"] for r in results] == ["nofile"]
    rec = run_dir / "base" / "clamp" / "s1"
    texts = "".join(p.read_text(encoding="utf-8") for p in rec.rglob("*.json*"))  # strict UTF-8, every file
    assert "\\\\xff" in texts or "\\\\xfe" in texts, "the odd names are shown with escapes"
    assert json.loads((rec / "result.json").read_text(encoding="utf-8"))["outside_writes"] >= 1
    assert ingest_run(ResultsStore(tmp_path / "kb.duckdb"), tmp_path / "runs", "r")["attempts"] == 1


@pytest.mark.skipif(not bwrap_path(), reason="needs bubblewrap")
@pytest.mark.parametrize("agent", ["pi", "builtin"])
def test_an_agents_commands_reach_the_model_only_through_its_proxy(agent, tmp_path, listener):
    """The agent's commands get no network: a listener on the host's loopback (here a stand-in for the Dagster UI
    or another session) hears nothing, while pi itself still talks to the model through the proxy (the attempt
    runs its turns to the end)."""
    script = tmp_path / "replay.jsonl"
    probe = f"echo -n hello >/dev/tcp/127.0.0.1/{listener.port} && echo reached || echo unreachable"
    script.write_text("\n".join(json.dumps(line) for line in [
        {"tool_calls": [{"name": "bash", "arguments": {"command": probe}}]},
        {"content": "Done."}]) + "\n")
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, agent, "clamp", tmp_path)
    time.sleep(0.3)
    assert listener.heard == []
    assert [r["outcome"] for r in results] == ["nofile"] and results[0]["turns"] >= 2
    events = (run_dir / "base" / "clamp" / "s1" / "events.jsonl").read_text()
    assert "unreachable" in events and "reached\\n" not in events
