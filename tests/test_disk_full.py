"""A full disk never becomes a model's score and never loses a result: a run without room starts nothing and says
what to do; a disk that fills during an attempt makes it an infra failure (requeued, its evidence kept) and stops
the run; the same command, once there is room, finishes every attempt exactly once. The small disks are tmpfs
mounts (root only; skipped where mounting is not allowed)."""

import json
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from bundled import SUITE

from kbench_dagster.cli import main
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.diskspace import FLOOR_BYTES, DiskFull, free_bytes
from sandbox.isolation.limits import AGENT_LIMITS, MB
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select


@pytest.fixture
def small_disk(tmp_path):
    mounts = []

    def make(size_mb: int) -> Path:
        where = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
        where.mkdir()
        res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", str(where)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs here ({res.stderr.strip()[:120]}): needs root")
        mounts.append(where)
        return where

    yield make
    for m in mounts:
        subprocess.run(["umount", "-l", str(m)], capture_output=True)


def spec_for(srv, work_root: Path, runs_root: Path, **kw) -> RunSpec:
    return RunSpec(run_id="disk", model=srv.model_id, conds=select_conditions("base"),
                   tasks=select(SUITE, "fizz,clamp"), url=srv.url, agent="builtin", runs_root=runs_root,
                   work_root=work_root, workers=1, timeout_s=120, **kw)


def results_of(runs_root: Path) -> dict[str, dict]:
    return {json.loads(p.read_text())["task"]: json.loads(p.read_text())
            for p in (runs_root / "disk").glob("*/*/s1/result.json")}


def test_a_run_without_room_starts_nothing_and_says_what_to_do(small_disk, tmp_path, capsys):
    disk = small_disk(48)
    with ScriptedServer(persona="oracle", port=0) as srv:
        argv = ["run", "disk", "--model", srv.model_id, "--url", srv.url, "--agent", "builtin", "--conds", "base",
                "--tasks", "fizz,clamp", "--runs", str(tmp_path / "runs"), "--db", str(tmp_path / "kb.duckdb")]
        assert main(argv + ["--work", str(disk)]) == 2
        err = capsys.readouterr().err
        assert ("the disk holding the work folder" in err and "free some space" in err
                and "2 attempts not started" in err)
        assert srv.chat_requests == 0 and results_of(tmp_path / "runs") == {}
        # room elsewhere: the same command finishes both
        assert main(argv + ["--work", str(tmp_path / "work")]) == 0
    assert {t: r["outcome"] for t, r in results_of(tmp_path / "runs").items()} == {"fizz": "pass", "clamp": "pass"}


def test_a_disk_that_fills_during_an_attempt_is_infra_then_the_rerun_finishes(small_disk, tmp_path):
    disk = small_disk(96)
    ballast = disk / "ballast.bin"
    limits = AGENT_LIMITS.with_(disk_bytes=16 * MB)

    def fill_once_the_agent_is_talking(srv):
        deadline = time.monotonic() + 60
        while srv.chat_requests == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        with open(ballast, "wb") as fh:  # another program fills the disk under the agent's feet
            try:
                while True:
                    fh.write(b"\0" * (1 << 20))
            except OSError:
                pass

    # the latency keeps the agent's session open well past the moment the disk fills
    with ScriptedServer(persona="oracle", port=0, latency=0.6) as srv:
        filler = threading.Thread(target=fill_once_the_agent_is_talking, args=(srv,))
        filler.start()
        spec = spec_for(srv, disk / "work", tmp_path / "runs", limits=limits, min_free_bytes=48 * MB)
        with pytest.raises(DiskFull, match="run stopped: the disk holding the work folder"):
            Scheduler(spec, SUITE).run()
        filler.join()
        assert free_bytes(disk) < FLOOR_BYTES
        assert results_of(tmp_path / "runs") == {}, "nothing may be scored on a full disk"
        kept = list((tmp_path / "runs" / "disk").glob("base/*/s1.requeued/attempt1.events.jsonl"))
        assert len(kept) == 1, "the infra attempt's events are kept as evidence"
        first = kept[0].parent.parent.name
        events = [json.loads(line) for line in kept[0].read_text().splitlines()]
        assert any(e["type"] == "requeue" and "the disk ran full" in e["reason"] for e in events)

        ballast.unlink()
        done = []
        Scheduler(spec, SUITE, on_result=done.append).run()
    results = results_of(tmp_path / "runs")
    assert sorted(r["task"] for r in done) == ["clamp", "fizz"]
    assert {t: r["outcome"] for t, r in results.items()} == {"fizz": "pass", "clamp": "pass"}
    assert ({t: r["requeues"] for t, r in results.items()}
            == {"fizz": int(first == "fizz"), "clamp": int(first == "clamp")})


def test_the_store_on_a_full_disk_keeps_its_rows_and_says_why(small_disk):
    """A partition that does not fit: the write fails with the disk's own error, and the rows it would have
    replaced are all still there, readable by a new connection."""
    import duckdb

    from kbench_dagster.store import ResultsStore

    disk = small_disk(6)
    store = ResultsStore(disk / "kb.duckdb")

    def row(i, detail):
        return {"run_id": "r", "model": "m", "condition": "base", "task": f"t{i}", "seed": 1, "outcome": "pass",
                "detail": detail}

    store.replace_partition("r/base.s1", {"attempts": [row(i, "first") for i in range(10)]})
    with pytest.raises(duckdb.Error, match="No space left on device"):
        store.replace_partition("r/base.s1", {"attempts": [row(i, "y" * 4000 + str(i)) for i in range(5000)]})
    with ResultsStore(disk / "kb.duckdb").connect() as con:
        assert (con.execute("SELECT count(*), min(detail), max(detail) FROM attempts").fetchone()
                == (10, "first", "first"))


def test_validate_on_a_full_disk_blames_the_disk_not_the_task(small_disk, capsys):
    """Too little room: a clear error before any task runs. A disk that fills while a task is validated: the task
    is not called broken, the disk is named."""
    from sandbox.tasks.validation import validate_task

    disk = small_disk(40)
    assert main(["validate", "--tasks", "fizz", "--work", str(disk), "--workers", "1"]) == 2
    assert "the disk holding the work folder" in capsys.readouterr().err
    with open(disk / "ballast.bin", "wb") as fh:  # the disk fills up (by someone else) before the task's tests run
        try:
            while True:
                fh.write(b"\0" * (1 << 20))
        except OSError:
            pass
    v = validate_task(SUITE.get("fizz"), disk / "v")
    assert v.status == "fail" and "the disk ran full" in v.reason and "says nothing about the task" in v.reason


def test_an_agent_that_outruns_the_disk_watchdog_is_charged_not_requeued(small_disk, tmp_path):
    """The agent's own command fills the disk faster than the watchdog looks (tens of MB in a blink). That is the
    model's doing, like the disk limit's kill: its oversized files are removed, the attempt is graded on what is
    left (a model outcome, never infra), and the run goes on with a usable disk."""
    disk = small_disk(96)
    script = tmp_path / "replay.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "head -c 90M /dev/zero > big.bin; echo done"}}]},
        {"content": "Done."}]) + "\n")
    limits = AGENT_LIMITS.with_(disk_bytes=16 * MB)
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        spec = RunSpec(run_id="disk", model=srv.model_id, conds=select_conditions("base"),
                       tasks=select(SUITE, "clamp"), url=srv.url, agent="builtin", runs_root=tmp_path / "runs",
                       work_root=disk / "work", workers=1, timeout_s=120, limits=limits, min_free_bytes=48 * MB)
        done = []
        Scheduler(spec, SUITE, on_result=done.append).run()
    (r,) = done
    assert r["outcome"] == "nofile" and not r["infra"] and r["requeues"] == 0
    assert r["watchdog_kills"] >= 1
    events = (tmp_path / "runs" / "disk" / "base" / "clamp" / "s1" / "events.jsonl").read_text()
    assert '"disk_limit"' in events
    assert free_bytes(disk) > 48 * MB, "the oversized files are gone: the disk is usable again"
