"""The attempt record tells what happened: a whole-session kill is a kill, processes the session's end took are
named, and a write to pi's own writable config folder is an outside write."""

import json
import re
from pathlib import Path

import pytest
from bundled import SUITE
from conftest import fresh, needs_bwrap

from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, MB
from sandbox.isolation.session import run_session
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select


def attempt(tmp_path: Path, agent: str, commands: list[str], **kw) -> tuple[dict, Path]:
    """One attempt at clamp whose 'model' runs these bash commands, then says it is done."""
    script = tmp_path / "replay.jsonl"
    lines = [{"tool_calls": [{"name": "bash", "arguments": {"command": c}}]} for c in commands]
    script.write_text("\n".join(json.dumps(x) for x in lines + [{"content": "Done."}]) + "\n")
    results = []
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=select(SUITE, "clamp"),
                       url=srv.url, agent=agent, runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                       timeout_s=60, **kw)
        Scheduler(spec, SUITE, on_result=results.append).run()
    [r] = results
    return r, tmp_path / "runs" / "r"


def logged_kills(run_dir: Path, label: str) -> tuple[int, list[str]]:
    """The kills watchdog.log names for the agent's sessions (label bash or pi), counted the way the record should
    count them: one per line, N for a summary line of N more, none for a whole-session timeout."""
    lines = [ln for ln in (run_dir / "watchdog.log").read_text().splitlines() if f" {label} kill " in ln]
    n = 0
    for ln in lines:
        more = re.search(r": (\d+) more processes$", ln)
        n += int(more.group(1)) if more else 0 if "pid=0 reason=timeout" in ln else 1
    return n, lines


@needs_bwrap
@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_a_whole_session_disk_kill_is_counted(agent, tmp_path):
    """The disk watchdog ends the whole session (pid namespace and all): logged, but it names no process, so it
    was counted as no kill at all."""
    r, run_dir = attempt(tmp_path, agent, ["for i in $(seq 1 30); do head -c 4M /dev/zero > part$i.bin; sleep 0.1; "
                                           "done; sleep 20"],
                         limits=AGENT_LIMITS.with_(disk_bytes=24 * MB, disk_poll_s=0.2))
    n, lines = logged_kills(run_dir, "bash" if agent == "builtin" else "pi")
    assert any("reason=disk whole session" in ln for ln in lines), lines
    assert r["watchdog_kills"] == n >= 1


@needs_bwrap
def test_a_whole_session_process_kill_is_counted(tmp_path):
    r, run_dir = attempt(tmp_path, "builtin", ["for i in $(seq 1 80); do sleep 30 & done; wait"],
                         limits=AGENT_LIMITS.with_(max_procs=40))
    n, lines = logged_kills(run_dir, "bash")
    assert any("reason=procs whole session" in ln for ln in lines), lines
    assert r["watchdog_kills"] == n >= 1


@needs_bwrap
@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_processes_the_sessions_end_killed_are_recorded(agent, tmp_path):
    """A background sleeper and a setsid'd daemon outlive the tool call: the pid namespace's end kills them. They
    are named in watchdog.log and counted, where before nothing said they had existed."""
    r, run_dir = attempt(tmp_path, agent, ["(sleep 301 > /dev/null 2>&1 &); "
                                           "setsid sleep 302 > /dev/null 2>&1 < /dev/null & sleep 0.5; echo started"])
    n, lines = logged_kills(run_dir, "bash" if agent == "builtin" else "pi")
    teardown = [ln for ln in lines if "reason=teardown" in ln]
    assert len(teardown) == 2 and all(" sleep: " in ln for ln in teardown), lines
    assert r["watchdog_kills"] == n >= 2


@needs_bwrap
def test_the_session_cannot_kill_its_reporter(tmp_path):
    """The script that names what the end kills runs before the uid drop: the session's own processes cannot kill
    it (nor read its environment, which holds the session's token), so the report arrives and names the leftover."""
    if not IsolationConfig(mode="bwrap").drops_uid:
        pytest.skip("only a harness run by root drops the session to another uid than the reporter's")
    wd = fresh(tmp_path / "wd")
    # the leftover is named only once it is `sleep`: on a busy machine the forked child can still be a bash
    script = ("sleep 300 & until [ \"$(cat /proc/$!/comm)\" = sleep ]; do :; done; "
              "kill -9 $PPID 2>/dev/null || echo refused; cat /proc/$PPID/environ >/dev/null 2>&1 || echo hidden")
    res = run_session(["bash", "-c", script], wd, limits=AGENT_LIMITS.with_(timeout_s=30),
                      cfg=IsolationConfig(mode="bwrap"), log_path=tmp_path / "watchdog.log")
    assert "refused" in res.tail and "hidden" in res.tail, res.tail
    named = [k for k in res.kills if k.reason == "teardown"]
    assert any("sleep" in k.detail for k in named) and res.kill_count == 1, res.kills


@needs_bwrap
def test_a_clean_session_records_no_teardown(tmp_path):
    wd = fresh(tmp_path / "wd")
    res = run_session(["bash", "-c", "echo hi; (echo sub; true)"], wd, limits=AGENT_LIMITS,
                      cfg=IsolationConfig(mode="bwrap"))
    assert res.returncode == 0 and res.kills == [] and res.kill_count == 0 and "hi" in res.tail


@needs_bwrap
def test_pi_writes_to_its_config_folder_are_outside_writes(tmp_path):
    """pi's config folder is writable inside the sandbox (pi keeps its lock and auth files there), so the model's
    commands can write there too: that is listed like a write to ~ or /tmp, and pi's own use of it is not."""
    r, _ = attempt(tmp_path, "pi", ['echo planted > "$PI_CODING_AGENT_DIR/evil.sh"; mkdir -p "$PI_CODING_AGENT_DIR/x"; '
                                    'echo 1 > "$PI_CODING_AGENT_DIR/x/y"; echo ok'])
    assert sorted(r["outside_write_paths"]) == ["/opt/kbench/pi-agent/evil.sh", "/opt/kbench/pi-agent/x/y"]
    assert r["outside_writes"] == 2


@needs_bwrap
def test_a_plain_pi_attempt_has_no_outside_writes(tmp_path):
    r, _ = attempt(tmp_path, "pi", ["echo ok > inside.txt"])
    assert r["outside_writes"] == 0 and r["outside_write_paths"] == [] and r["watchdog_kills"] == 0
