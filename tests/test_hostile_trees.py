"""Trees an agent can leave (2000 folders deep, 50,000 names wide, links in a loop, names that are not UTF-8,
FIFOs, sockets, device nodes): every walk of the harness survives them, stays bounded and says what it left out,
and an attempt that leaves one is graded and recorded like any other. A failure inside the harness itself is
recorded as a harness error for that attempt, never a silent gap in pass@1."""

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from bundled import SUITE
from conftest import SQUARE_TEST, SQUARE_TOML, fresh, needs_bwrap, write_task

from kbench_dagster.cli import main as cli_main
from sandbox.engine.attempt_folders import copy_final_files
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.diskspace import usage, used_bytes
from sandbox.isolation.limits import AGENT_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.trees import Walk, chown_tree, cwd_within, listing, remove_tree
from sandbox.isolation.workdirs import fresh_dir
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.loader import select

DEEP = 2000
WIDE = 50_000
ODD = os.fsdecode(b"odd\xff\xfe-\x1b[2J")

# The same tree, built inside the sandbox by the agent's own command (hard links make 50,000 names cheap).
BUILD = r"""
import os, socket
top = os.getcwd()
os.mkdir("deep")
os.chdir("deep")
for _ in range({deep}):
    os.mkdir("dd")
    os.chdir("dd")
with open("bottom.bin", "wb") as f:
    f.write(b"x" * (16 << 20))
os.chdir(top)
os.mkdir("wide")
open("wide/f0", "w").close()
for i in range(1, {wide}):
    os.link("wide/f0", "wide/f%d" % i)
os.symlink(".", "loop")
os.symlink("/etc/passwd", "passwd")
os.symlink("wide", "wide-again")
os.mkfifo("fifo")
socket.socket(socket.AF_UNIX).bind("sock")
open(os.fsdecode(b"odd\xff\xfe-\x1b[2J"), "w").write("odd name")
print("built")
"""


def build_tree(root: Path, deep: int = DEEP, wide: int = WIDE) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", BUILD.format(deep=deep, wide=wide)], cwd=root, check=True,
                   capture_output=True)
    if os.geteuid() == 0:  # a device node, as an agent running as root in some other sandbox could leave one
        os.mknod(root / "null-dev", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return root


@pytest.fixture(autouse=True)
def no_deep_leftovers(tmp_path):
    """pytest removes old temporary folders with shutil.rmtree, which a tree this deep breaks (RecursionError on
    Python 3.11): each test takes its trees with it."""
    yield
    remove_tree(tmp_path, ignore_errors=True)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    yield build_tree(folder / "tree")
    remove_tree(folder, ignore_errors=True)


def test_a_walk_goes_to_the_bottom_without_recursion_or_following_a_link(hostile):
    walk = Walk(hostile)
    kinds: dict[str, int] = {}
    deepest = None
    for e in walk:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
        if e.name == "bottom.bin":
            deepest = e
    assert walk.truncated is None and walk.errors == 0
    assert deepest is not None and deepest.depth == DEEP + 2 and deepest.st.st_size == 16 << 20
    assert kinds["dir"] == DEEP + 2  # deep/, its 2000 levels, wide/: the links to folders were not entered
    assert kinds["link"] == 3 and kinds["file"] == WIDE + 2
    assert kinds["other"] == 2 + (os.geteuid() == 0)  # fifo, socket, device


def test_a_walk_is_bounded_and_says_why(hostile):
    by_entries = Walk(hostile, max_entries=1000)
    assert sum(1 for _ in by_entries) == 1000 and "more than 1000 entries" in by_entries.truncated
    by_depth = Walk(hostile, max_depth=10)
    assert max(e.depth for e in by_depth) == 10 and "deeper than 10 levels" in by_depth.truncated
    # stopping early closes every folder it held
    fds = len(os.listdir("/proc/self/fd"))
    for i, _ in enumerate(Walk(hostile)):
        if i == 3000:
            break
    assert len(os.listdir("/proc/self/fd")) == fds


def test_the_disk_count_reaches_a_file_below_path_max(hostile):
    """The bottom file (16 MB) lies 6,000 characters of path below the root, past PATH_MAX: a count by path
    cannot open its folder and misses it."""
    bottom = next(e for e in Walk(hostile) if e.name == "bottom.bin")
    assert len(str(hostile / bottom.rel)) > 4096
    total, short = usage(hostile / "deep")
    assert short is None
    assert total >= bottom.st.st_blocks * 512 >= 16 << 20
    assert used_bytes(hostile) >= total + used_bytes(hostile / "wide")


DISK_LIMITS = AGENT_LIMITS.with_(timeout_s=60, disk_bytes=24 << 20, disk_poll_s=0.2)


@needs_bwrap
def test_the_disk_watchdog_sees_data_hidden_below_path_max(work):
    """40 MB at the bottom of a 2000-level folder, against a 24 MB budget: a count by path never reached it."""
    make = ("import os, time\nfor _ in range(%d):\n    os.mkdir('dd'); os.chdir('dd')\n"
            "open('hidden.bin', 'wb').write(b'x' * (40 << 20))\ntime.sleep(30)\n" % DEEP)
    wd = fresh(work / "wd")
    res = run_session(["python3", "-c", make], wd, limits=DISK_LIMITS, cfg=IsolationConfig(mode="bwrap"))
    assert res.session_killed == "disk" and not res.timed_out


@needs_bwrap
def test_the_disk_watchdog_ends_a_session_whose_folders_cannot_be_counted(work):
    """Each of 400 levels holds eight folders, one of them the next level: a walk that goes deep while siblings wait
    holds a folder open per such level; it stops at 256, what lies below is unknown, so the session ends as if
    over its disk budget."""
    make = ("import os, time\nfor _ in range(400):\n    [os.mkdir(c) for c in 'abcdefgh']\n    os.chdir('a')\n"
            "time.sleep(30)\n")
    wd = fresh(work / "wd")
    res = run_session(["python3", "-c", make], wd, limits=DISK_LIMITS, cfg=IsolationConfig(mode="bwrap"))
    assert res.session_killed == "disk" and not res.timed_out
    [kill] = [k for k in res.kills if k.reason == "disk" and not k.pid]
    assert "cannot be counted: more than 256 nested levels" in kill.detail


def test_the_record_copy_is_bounded_and_names_what_it_left_out(hostile, tmp_path):
    dest = tmp_path / "record"
    left_out = copy_final_files(hostile, dest)
    assert left_out[0].startswith("(listing truncated: ")
    assert any(x.startswith("fifo") for x in left_out) and any(x.startswith("sock") for x in left_out)
    assert os.readlink(dest / "loop") == "." and os.readlink(dest / "passwd") == "/etc/passwd"
    assert (dest / ODD).read_text() == "odd name"
    assert len(left_out) <= 202  # 200 named, a count of the rest, the truncation note
    kept = sum(1 for _ in Walk(dest))
    assert kept <= 5000
    assert not any(e.kind == "other" for e in Walk(dest))


def test_outside_write_listing_is_bounded(hostile):
    lines = listing(hostile, "~", 100)
    assert len(lines) <= 102 and lines[:-2] == sorted(lines[:-2])
    assert any("listing truncated" in x for x in lines)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving files to another uid needs root")
def test_chown_reaches_the_bottom_and_leaves_link_targets_alone(tmp_path):
    tree = build_tree(tmp_path / "t", wide=10)
    target = tmp_path / "outside.txt"
    target.write_text("not the agent's")
    os.symlink(target, tree / "to-outside")
    walk = chown_tree(tree, 65534)
    assert walk.truncated is None
    bottom = next(e for e in Walk(tree) if e.name == "bottom.bin")
    assert bottom.st.st_uid == 65534
    assert os.lstat(tree / "to-outside").st_uid == 65534 and target.stat().st_uid == 0


def test_removal_of_any_tree(tmp_path):
    tree = build_tree(tmp_path / "t", wide=200)
    (tree / "locked").mkdir()
    (tree / "locked" / "inner").write_text("x")
    os.chmod(tree / "locked", 0)
    outside = tmp_path / "keep.txt"
    outside.write_text("kept")
    os.symlink(outside, tree / "link-out")
    remove_tree(tree)
    assert not os.path.lexists(tree) and outside.read_text() == "kept"
    again = build_tree(tmp_path / "again", deep=1200, wide=10)  # past the recursion limit
    fresh_dir(again)  # a rerun's fresh work folder over the old try's tree
    assert again.is_dir() and os.listdir(again) == []


def test_the_cwd_sweep_finds_a_daemon_below_path_max(work):
    """Without a pid namespace only the sweep finds a setsid'd daemon; one that sits in a folder too deep for its
    /proc/PID/cwd link to be read was missed, and outlived its session."""
    daemon = ("import os, time\nfor _ in range(%d):\n    os.mkdir('dd'); os.chdir('dd')\nr, w = os.pipe()\n"
              "if os.fork() == 0:\n    os.setsid(); os.write(w, b'x'); time.sleep(300)\nos.read(r, 1)\n" % DEEP)
    wd = fresh(work / "wd")
    res = run_session([sys.executable, "-c", daemon], wd, limits=AGENT_LIMITS.with_(timeout_s=60),
                      cfg=IsolationConfig(mode="none"), log_path=work / "watchdog.log")
    swept = [k.pid for k in res.kills if k.reason == "sweep"]
    assert len(swept) == 1
    assert not psutil.pid_exists(swept[0]) or psutil.Process(swept[0]).status() == psutil.STATUS_ZOMBIE
    p = subprocess.Popen(["sleep", "30"], cwd=wd)
    try:
        assert cwd_within(p.pid, wd) and not cwd_within(p.pid, work / "elsewhere")
    finally:
        p.kill()
        p.wait()


def _replay(tmp_path: Path, lines: list[dict]) -> Path:
    script = tmp_path / "replay.jsonl"
    script.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return script


def _run(tmp_path, script, agent, tasks="clamp", suite=SUITE, runs=1, **kw):
    """`runs` times the same command against one server: the results of each."""
    out = []
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=select(suite, tasks),
                       url=srv.url, agent=agent, runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                       timeout_s=120, **kw)
        for _ in range(runs):
            results: list[dict] = []
            Scheduler(spec, suite, on_result=results.append).run()
            out.append(results)
    return out if runs > 1 else out[0], tmp_path / "runs" / "r"


@needs_bwrap
@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_an_attempt_that_leaves_a_hostile_tree_is_graded_and_recorded(agent, tmp_path):
    """The agent solves clamp, then leaves the tree: the attempt is scored (pass), its record is written and says
    what it left out, and its work folder is gone."""
    solution = (SUITE.get("clamp").solution_dir / "clamp.py").read_text()
    script = _replay(tmp_path, [
        {"tool_calls": [{"name": "write", "arguments": {"path": "clamp.py", "content": solution}}]},
        {"tool_calls": [{"name": "bash", "arguments": {
            "command": f"python3 - <<'EOF'\n{BUILD.format(deep=DEEP, wide=6000)}\nEOF"}}]},
        {"content": "Done."}])
    results, run_dir = _run(tmp_path, script, agent)
    [r] = results
    rec = run_dir / "base" / "clamp" / "s1"
    assert r["outcome"] == "pass", (rec / "tests.txt").read_text()[-3000:]
    assert r["harness_error"] is None and not r["infra"]
    assert r["files_left_out"][0].startswith("(listing truncated: ")
    assert (rec / "workdir" / "clamp.py").read_text() == solution
    assert not (tmp_path / "work" / "r" / "base" / "clamp" / "s1").exists()
    events = (rec / "events.jsonl").read_text()
    assert "built" in events


def _broken_suite(tmp_path: Path):
    """A suite whose task folder gains a socket after it was loaded (a checkout changed under a running run): the
    harness fails copying the task's files into the work folder, through no doing of the model."""
    root = tmp_path / "suite"
    folder = write_task(root, "square", SQUARE_TOML.format(id="square"),
                        {"tests/test_task.py": SQUARE_TEST, "solution/sq.py": "def square(x):\n    return x * x\n",
                         "setup/notes.txt": "square numbers\n"})
    suite = load_suite(root)
    socket.socket(socket.AF_UNIX).bind(str(folder / "setup" / "stray.sock"))
    return suite


def test_a_harness_error_is_recorded_shown_and_counted_as_attrition(tmp_path, capsys):
    suite = _broken_suite(tmp_path)
    script = _replay(tmp_path, [{"content": "Done, it works."}])
    (results, again), run_dir = _run(tmp_path, script, "builtin", tasks=None, suite=suite, runs=2,
                                     isolation=IsolationConfig(mode="none"))
    assert again == []  # recorded, so the same command again does not redo it (the record stands until removed)
    [r] = results
    assert r["outcome"] == "infra" and r["infra"] and not r["false_claim"]
    assert r["harness_error"].startswith("harness error while setting up or running the agent: Error: ")
    assert "stray.sock" in r["harness_error"]
    rec = run_dir / "base" / "square" / "s1"
    assert json.loads((rec / "result.json").read_text())["harness_error"] == r["harness_error"]
    assert any(json.loads(x)["type"] == "harness_error" for x in (rec / "events.jsonl").read_text().splitlines())
    assert cli_main(["report", "r", "--runs", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert "1 harness errors (kbench itself failed" in out and "attrition 100.0%" in out
    assert "infra failures (server unreachable" not in out
    assert cli_main(["triage", "r", "--runs", str(tmp_path / "runs")]) == 0
    assert "harness error (infra)" in capsys.readouterr().out
    assert cli_main(["triage", "r", "--task", "square", "--runs", str(tmp_path / "runs")]) == 0
    assert "harness: harness error while setting up" in capsys.readouterr().out
