"""Every sandbox limit, proven with a hostile command."""

import os
import subprocess
import time

import psutil
import pytest
from conftest import DOCKER, ISOLATIONS, REPO, SANDBOXES, fresh

from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, GB, MB, TEST_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.uids import pool

EVERY = [*ISOLATIONS, DOCKER]  # the limits that hold even without a sandbox, then in both sandboxes


def session(work, cmd, isolation, limits=AGENT_LIMITS, **kw):
    wd = fresh(work / "wd")
    return run_session(["bash", "-c", cmd], wd, limits=limits, cfg=IsolationConfig(mode=isolation),
                       log_path=work / "watchdog.log", **kw), wd


def sandbox_user_processes():
    """Processes of the uids sessions drop to that outlived their session (as root), or none when not root."""
    if os.geteuid() != 0:
        return []
    return pool().strays()


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_fork_bomb_is_stopped_and_the_machine_stays_usable(work, isolation):
    before = len(sandbox_user_processes())
    start = time.monotonic()
    res, _ = session(work, ":(){ :|:& };:; sleep 60", isolation, limits=AGENT_LIMITS.with_(timeout_s=60))
    assert res.session_killed == "procs"
    assert time.monotonic() - start < 30, "the bomb should be stopped long before the session timeout"
    assert len(sandbox_user_processes()) <= before, "fork bomb processes survived"
    assert subprocess.run(["true"]).returncode == 0
    assert "reason=procs" in (work / "watchdog.log").read_text()


@pytest.mark.parametrize("isolation", EVERY)
def test_a_3gb_allocation_is_killed(work, isolation):
    cmd = "python3 -c \"import time; b = b'x' * (3 * 1024**3); time.sleep(60)\"; echo exit=$?"
    res, _ = session(work, cmd, isolation, limits=AGENT_LIMITS.with_(timeout_s=60))
    assert [k.reason for k in res.kills if k.pid] == ["rss"]
    assert "exit=137" in res.tail  # SIGKILL, seen by the shell that started it
    assert not res.timed_out
    assert "reason=rss" in (work / "watchdog.log").read_text()


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_an_endless_printer_leaves_at_most_1mb(work, isolation):
    out = work / "tests.txt"
    res, _ = session(work, "yes 'all work and no play'", isolation, limits=TEST_LIMITS.with_(timeout_s=3),
                     output_path=out)
    assert res.timed_out and res.session_killed == "timeout"
    assert res.output_truncated and res.output_bytes > 1 * MB
    assert 0 < out.stat().st_size <= 1 * MB


@pytest.mark.parametrize("isolation", EVERY)
def test_a_2gb_file_write_fails(work, isolation):
    res, wd = session(work, "head -c 2G /dev/zero > big.bin; echo exit=$?", isolation)
    size = (wd / "big.bin").stat().st_size
    (wd / "big.bin").unlink()
    assert "exit=0" not in res.tail
    assert size <= 1 * GB


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_hidden_tests_get_the_smaller_file_limit(work, isolation):
    res, wd = session(work, "head -c 50M /dev/zero > out.bin; echo exit=$?", isolation, limits=TEST_LIMITS)
    assert "exit=0" not in res.tail and (wd / "out.bin").stat().st_size <= 20 * MB


@pytest.mark.parametrize("isolation", EVERY)
def test_a_setsid_sleeper_is_killed(work, isolation):
    marker = f"sleep {4000 + len(isolation)}"  # one per backend: a survivor is named by its own test
    res, wd = session(work, f"setsid {marker} > /dev/null 2>&1 < /dev/null & sleep 0.3", isolation)
    time.sleep(0.2)
    survivors = [p for p in psutil.process_iter(["cmdline"])
                 if p.info["cmdline"] and " ".join(p.info["cmdline"]) == marker]
    assert survivors == []
    if isolation == "none":  # without a pid namespace only the sweep can find it
        assert any(k.reason == "sweep" for k in res.kills)


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_session_timeout_kills_everything(work, isolation):
    res, _ = session(work, "sleep 100 & sleep 100", isolation, limits=AGENT_LIMITS.with_(timeout_s=1))
    assert res.timed_out and res.session_killed == "timeout" and res.duration_s < 10


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_the_repository_and_hidden_tests_are_unreachable(work, isolation):
    hidden = REPO / "task_defs" / "suites" / "kbench" / "fizz" / "tests" / "test_task.py"
    assert hidden.exists()
    cmd = f"cat {hidden}; echo rc1=$?; ls {REPO}; echo rc2=$?; cat /root/.bash_history 2>&1; ls ~; echo home=$HOME"
    res, _ = session(work, cmd, isolation)
    assert "rc1=1" in res.tail and "rc2=2" in res.tail
    assert "canary" not in res.tail
    assert "home=/home/kbench" in res.tail


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_other_work_folders_are_invisible(work, isolation):
    other = fresh(work / "other-run")
    (other / "secret.txt").write_text("someone else's answer")
    res, _ = session(work, f"cat {other / 'secret.txt'}; echo rc=$?", isolation)
    assert "rc=1" in res.tail and "someone else" not in res.tail


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_keys_in_the_environment_do_not_reach_the_sandbox(work, isolation, monkeypatch):
    monkeypatch.setenv("KBENCH_API_KEY", "sk-should-not-leak")
    res, _ = session(work, "env", isolation)
    assert "sk-should-not-leak" not in res.tail


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_writes_outside_the_work_folder_are_counted_and_contained(work, isolation):
    cmd = "echo x > ~/note; echo y > /tmp/scratch; echo z > /etc/evil; echo ok > inside.txt"
    res, wd = session(work, cmd, isolation)
    assert sorted(res.outside_writes) == ["/tmp/scratch", "~/note"]
    assert not os.path.exists("/etc/evil")
    assert (wd / "inside.txt").read_text() == "ok\n"


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_a_clean_command_gets_no_kills(work, isolation):
    res, _ = session(work, "true", isolation)
    assert res.returncode == 0 and res.kills == []


@pytest.mark.parametrize("isolation", EVERY)
def test_filling_the_disk_past_the_sessions_budget_kills_the_session(work, isolation):
    """Many small files (no single one near the file-size limit), in the work folder and in the private /tmp:
    together over the disk budget, so the whole session is stopped and the kill is logged."""
    cmd = ("for i in $(seq 1 40); do head -c 4M /dev/zero > part$i.bin; head -c 4M /dev/zero > /tmp/t$i.bin; "
           "sleep 0.1; done; sleep 30")
    res, wd = session(work, cmd, isolation,
                      limits=AGENT_LIMITS.with_(timeout_s=60, disk_bytes=64 * MB, disk_poll_s=0.2))
    assert res.session_killed == "disk" and not res.timed_out
    assert res.duration_s < 20
    written = sum(p.stat().st_size for p in wd.glob("part*.bin"))
    assert 16 * MB < written < 96 * MB  # stopped soon after the budget, counting its /tmp as well
    assert "reason=disk" in (work / "watchdog.log").read_text()


@pytest.mark.parametrize("isolation", SANDBOXES)
def test_without_network_a_session_reaches_no_host_service(work, isolation, listener):
    """Hidden tests, setup scripts and the builtin agent's commands run with network=False: a listener on the
    host's loopback (the model server, the Dagster UI, another session waiting for a leaked test) is out of reach.
    The control: the same command with network reaches it."""
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && echo -n leak-$1 >&3; echo rc=$?"
    res, _ = session(work, f"bash -c '{probe}' _ closed", isolation, network=False)
    assert "rc=1" in res.tail, res.tail
    res, _ = session(work, f"bash -c '{probe}' _ open", isolation)
    assert "rc=0" in res.tail, res.tail
    listener.wait_for(1)
    assert listener.heard == [b"leak-open"]
