"""The builtin agent's file tools run as root in the harness: nothing the agent leaves in its work folder (FIFOs,
devices, links, huge or sparse files, links swapped in mid-call) may hang the harness, blow up its memory, or reach
a file outside the folder. Calls that could hang run in a thread with a safety join; a call still running then is a
failure (and the test releases it), never a wait without end."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO, needs_bwrap

from sandbox.agents.tools import EDIT_MAX_BYTES, READ_CAP_BYTES, ToolBox, ToolError, _within
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, MB
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.loader import select

SAFETY_S = 20.0  # a safety stop for a call that should return at once; not a measure of speed
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="making device nodes needs root")


def box(workdir: Path, cfg: IsolationConfig | None = None, **limits) -> ToolBox:
    return ToolBox(workdir, cfg or IsolationConfig(mode="none"), AGENT_LIMITS.with_(**limits),
                   deadline=time.monotonic() + 120)


def release(fifos) -> list[int]:
    """Open the other end of each FIFO without blocking, so that a tool stuck opening it returns."""
    fds = []
    for p in fifos:
        for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK):
            try:
                fds.append(os.open(p, flags))
            except OSError:
                pass
    return fds


def call(tools: ToolBox, name: str, args: dict, fifos=()) -> tuple[bool, str]:
    """(ok, text) of one tool call, run in a thread with a safety join."""
    out = {}

    def work():
        try:
            out["r"] = (True, tools.run(name, args))
        except (ToolError, OSError) as exc:
            out["r"] = (False, str(exc))

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(SAFETY_S)
    if t.is_alive():
        fds = release(fifos)
        t.join(SAFETY_S)
        for fd in fds:
            os.close(fd)
        pytest.fail(f"{name} {args} was still running after {SAFETY_S:g}s: it blocked the harness")
    return out["r"]


@pytest.fixture
def wd(tmp_path) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    return d


# --- FIFOs, sockets, devices, folders ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, args", [
    ("write", {"path": "pipe", "content": "x"}),
    ("read", {"path": "pipe"}),
    ("edit", {"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]}),
])
def test_a_fifo_is_refused_at_once(wd, name, args):
    os.mkfifo(wd / "pipe")
    ok, text = call(box(wd), name, args, fifos=[wd / "pipe"])
    assert not ok and "FIFO" in text


def test_a_fifo_with_a_reader_is_still_not_written(wd):
    """With a reader holding it open, a FIFO would open for writing at once: the type check refuses it anyway."""
    os.mkfifo(wd / "pipe")
    reader = os.open(wd / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        ok, text = call(box(wd), "write", {"path": "pipe", "content": "hello"}, fifos=[wd / "pipe"])
        assert not ok and "FIFO" in text
        assert os.read(reader, 100) == b""  # nothing was written into it (no writer now: end of file)
    finally:
        os.close(reader)


def test_a_socket_is_refused(wd):
    import socket

    s = socket.socket(socket.AF_UNIX)
    s.bind(str(wd / "sock"))
    try:
        for name, args in [("write", {"path": "sock", "content": "x"}), ("read", {"path": "sock"})]:
            ok, text = call(box(wd), name, args)
            assert not ok and "socket" in text
    finally:
        s.close()


@root_only
def test_a_device_node_in_the_folder_is_refused(wd):
    os.mknod(wd / "null", 0o666 | 0o020000, os.makedev(1, 3))  # /dev/null: today's write "succeeds" into it
    os.mknod(wd / "zero", 0o666 | 0o020000, os.makedev(1, 5))
    for name, args in [("write", {"path": "null", "content": "x"}), ("read", {"path": "zero"}),
                       ("edit", {"path": "null", "edits": []})]:
        ok, text = call(box(wd), name, args)
        assert not ok and "device" in text, (name, text)


def test_a_device_by_name_or_by_link_is_outside_the_folder(wd):
    (wd / "z").symlink_to("/dev/zero")
    tools = box(wd)
    for name, args in [("read", {"path": "z"}), ("read", {"path": "/dev/zero"}),
                       ("write", {"path": "z", "content": "x"})]:
        ok, text = call(tools, name, args)
        assert not ok and "outside the working folder" in text
    assert tools.outside_writes == ["refused:z"]


def test_a_folder_as_the_path_and_a_fifo_or_file_as_a_parent(wd):
    (wd / "d").mkdir()
    os.mkfifo(wd / "pipe")
    (wd / "f").write_text("x")
    tools = box(wd)
    for name, args, want in [
        ("write", {"path": "d", "content": "x"}, "is a folder"),
        ("read", {"path": "d"}, "is a folder"),
        ("write", {"path": "pipe/x.txt", "content": "x"}, "pipe (in the path 'pipe/x.txt') is not a folder"),
        ("read", {"path": "f/x.txt"}, "f (in the path 'f/x.txt') is not a folder"),
        ("write", {"path": ".", "content": "x"}, "the working folder itself"),
    ]:
        ok, text = call(tools, name, args, fifos=[wd / "pipe"])
        assert not ok and want in text, (name, args, text)


# --- links ------------------------------------------------------------------------------------------------------


def test_links_inside_the_folder_are_followed_links_out_are_not(wd, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("secret\n")
    (wd / "src").mkdir()
    (wd / "src" / "a.py").write_text("a = 1\n")
    (wd / "alias").symlink_to("src")
    (wd / "out").symlink_to(outside)
    tools = box(wd)
    assert call(tools, "read", {"path": "alias/a.py"}) == (True, "a = 1\n")
    assert call(tools, "write", {"path": "alias/b.py", "content": "b = 2\n"})[0]
    assert (wd / "src" / "b.py").read_text() == "b = 2\n"
    ok, text = call(tools, "write", {"path": "out/secret", "content": "pwned"})
    assert not ok and "outside" in text
    ok, text = call(tools, "write", {"path": "out/new/file", "content": "pwned"})
    assert not ok and not (outside / "new").exists()
    assert (outside / "secret").read_text() == "secret\n"


def test_a_link_loop_is_a_tool_error(wd):
    (wd / "a").symlink_to("b")
    (wd / "b").symlink_to("a")
    for args in [{"path": "a"}, {"path": "a/x"}]:
        ok, text = call(box(wd), "read", args)
        assert not ok and ("cannot be followed" in text or "not a folder" in text)


def test_a_hard_link_is_not_written(wd, tmp_path):
    """A hard link to a file outside the folder (on the same disk) would be written, and chowned, as root."""
    outside = tmp_path / "victim"
    outside.write_text("keep\n")
    os.link(outside, wd / "h")
    for name, args in [("write", {"path": "h", "content": "pwned"}),
                       ("edit", {"path": "h", "edits": [{"oldText": "keep", "newText": "pwned"}]})]:
        ok, text = call(box(wd), name, args)
        assert not ok and "hard links" in text
    assert outside.read_text() == "keep\n"


_FLIPPER = """
import os, sys
os.chdir(sys.argv[1])
target = sys.argv[2]
while not os.path.exists("stop"):
    os.symlink(target, "t.link")
    os.rename("t.link", "t")
    with open("t.file", "w") as f:
        f.write("mine\\n")
    os.rename("t.file", "t")
"""


def test_a_file_swapped_for_a_link_mid_call_never_reaches_outside(wd, tmp_path):
    """Another process flips the name t between a regular file and a link to a file outside, as fast as it can,
    while the tools write, edit and read t: the outside file is never changed and never read."""
    victim = tmp_path / "victim"
    victim.write_text("SECRET-1234\n")
    (wd / "t").write_text("mine\n")
    flipper = subprocess.Popen([sys.executable, "-c", _FLIPPER, str(wd), str(victim)])
    tools = box(wd)
    try:
        seen = []
        for i in range(600):
            seen.append(call(tools, ("write", "read", "edit")[i % 3],
                             [{"path": "t", "content": "mine\n"}, {"path": "t"},
                              {"path": "t", "edits": [{"oldText": "mine", "newText": "mine"}]}][i % 3]))
    finally:
        (wd / "stop").touch()
        flipper.wait(SAFETY_S)
    assert victim.read_text() == "SECRET-1234\n"
    assert not any("SECRET" in text for _ok, text in seen)
    assert any(ok for ok, _ in seen), "some calls should have found the regular file"


# --- size: read a byte cap with a note, write and edit the file-size limit -----------------------------------------


_RSS_CHILD = """
import json, resource, sys, time
from pathlib import Path
from sandbox.agents.tools import ToolBox
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS
tools = ToolBox(Path(sys.argv[1]), IsolationConfig(mode="none"), AGENT_LIMITS, deadline=time.monotonic() + 120)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out = tools.run("read", {"path": "big"})
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"grew": after - before, "out": out}))
"""


def test_reading_a_200_mb_file_holds_a_small_part_of_it(wd):
    """Measured in a child process (its peak RSS is its own): reading 200 MB streams and stops at the cap."""
    size = 200 * MB
    with open(wd / "big", "wb") as f:
        f.truncate(size)  # sparse: takes no disk
    proc = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(wd)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert got["grew"] < 0.5 * size, f"the harness grew by {got['grew']} bytes reading a {size}-byte file"
    head, note = got["out"][:READ_CAP_BYTES], got["out"][READ_CAP_BYTES:]
    assert head == "\x00" * READ_CAP_BYTES
    assert "line 1 of big is longer than" in note and "tail -c +30001 big | head -c 30000" in note


def test_a_long_file_is_read_in_windows_that_join_up(wd):
    lines = [f"line {i:06d}\n" for i in range(1, 20001)]  # 240 kB
    (wd / "long.txt").write_text("".join(lines))
    tools = box(wd)
    got, offset = [], 1
    for _ in range(20):
        ok, text = call(tools, "read", {"path": "long.txt", "offset": offset})
        assert ok
        body, _, note = text.partition("[truncated: ")
        assert len(body.encode()) <= READ_CAP_BYTES
        got.append(body)
        if not note:
            break
        offset = int(note.rsplit("offset=", 1)[1].rstrip("]"))
    assert "".join(got) == "".join(lines)
    assert call(tools, "read", {"path": "long.txt", "offset": 5, "limit": 2}) == (
        True, "line 000005\nline 000006\n[more lines follow: continue with offset=7]")
    assert call(tools, "read", {"path": "long.txt", "offset": 20001}) == (
        True, "(no lines there: long.txt has 20000 lines)")


def test_write_and_edit_keep_to_the_file_size_limit(wd):
    tools = box(wd, fsize_bytes=100)
    ok, text = call(tools, "write", {"path": "a.txt", "content": "x" * 101})
    assert not ok and "larger than 100 bytes" in text and not (wd / "a.txt").exists()
    assert call(tools, "write", {"path": "a.txt", "content": "x" * 90})[0]
    ok, text = call(tools, "edit", {"path": "a.txt", "edits": [{"oldText": "x" * 90, "newText": "y" * 200}]})
    assert not ok and "would be 200 bytes" in text and (wd / "a.txt").read_text() == "x" * 90
    with open(wd / "huge", "wb") as f:
        f.truncate(EDIT_MAX_BYTES + 1)
    ok, text = call(box(wd), "edit", {"path": "huge", "edits": [{"oldText": "a", "newText": "b"}]})
    assert not ok and "use bash" in text


def test_edit_keeps_bytes_that_are_not_utf8(wd):
    (wd / "legacy.py").write_bytes(b"name = 'caf\xe9'\nx = 1\n")
    assert call(box(wd), "edit", {"path": "legacy.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]})[0]
    assert (wd / "legacy.py").read_bytes() == b"name = 'caf\xe9'\nx = 2\n"


@pytest.mark.parametrize("name, args, want", [
    ("read", {"path": "a\x00b"}, "NUL"),
    ("write", {"path": "x\ud800", "content": ""}, "not valid Unicode"),
    ("write", {"path": "x", "content": "\ud800"}, "not valid Unicode"),
    ("read", {"path": "x", "offset": float("inf")}, "finite"),
    ("read", {"path": "x", "limit": float("nan")}, "finite"),
])
def test_arguments_json_allows_but_the_os_does_not_are_tool_errors(wd, name, args, want):
    """json.loads gives NUL characters, lone surrogates, Infinity and NaN; each was an exception that ended the
    session (ValueError, UnicodeEncodeError, OverflowError), now a tool error the model sees."""
    (wd / "x").write_text("x\n")
    ok, text = call(box(wd), name, args)
    assert not ok and want in text


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="the tools hand files over only when the harness is root")
def test_what_write_makes_belongs_to_the_sandbox_user(wd):
    cfg = IsolationConfig(mode="bwrap")
    assert call(box(wd, cfg), "write", {"path": "new/deep/f.txt", "content": "x"})[0]
    for p in (wd / "new", wd / "new" / "deep", wd / "new" / "deep" / "f.txt"):
        assert p.stat().st_uid == cfg.run_as_uid, p


# --- time: a call that blocks anyway is given up, and a whole session keeps its --timeout -------------------------


def test_a_file_operation_that_blocks_is_given_up_at_its_deadline(tmp_path):
    """The worker-thread stop behind the non-blocking opens, on a real blocking open (a FIFO without a reader)."""
    os.mkfifo(tmp_path / "p")
    out = {}

    def blocking_open(deadline):
        os.close(os.open(tmp_path / "p", os.O_WRONLY))
        return "opened"

    t = threading.Thread(target=lambda: out.update(r=_catch(_within, time.monotonic() + 0.5, "write", blocking_open,
                                                            {})), daemon=True)
    t.start()
    t.join(SAFETY_S)
    fds = release([tmp_path / "p"])  # the abandoned worker is still in open(): let it go
    for fd in fds:
        os.close(fd)
    assert not t.is_alive(), "the caller waited past the deadline"
    assert isinstance(out["r"], ToolError) and "did not finish in time" in str(out["r"])


def _catch(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return exc


def test_a_builtin_session_whose_write_hits_a_fifo_ends_with_its_outcome(tmp_path):
    """The whole agent: a command makes a FIFO, the model writes to it, then says it is done. The write is a tool
    error, the session goes on and ends by itself (no agent timeout), and the attempt is graded (nofile)."""
    suite = load_suite("kbench")
    script = tmp_path / "replay.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "mkfifo pipe && echo made"}}]},
        {"tool_calls": [{"name": "write", "arguments": {"path": "pipe", "content": "x"}}]},
        {"content": "Done."}]) + "\n")
    results = []
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=select(suite, "clamp"),
                       url=srv.url, agent="builtin", runs_root=tmp_path / "runs", work_root=tmp_path / "work",
                       workers=1, timeout_s=60, keep_work=True)
        t = threading.Thread(target=Scheduler(spec, suite, on_result=results.append).run, daemon=True)
        t.start()
        t.join(60 + 60)
        if t.is_alive():
            fds = release(list((tmp_path / "work").rglob("pipe")))
            t.join(SAFETY_S)
            for fd in fds:
                os.close(fd)
            pytest.fail("the run went on past its --timeout: the write on the FIFO blocked the harness")
    [r] = results
    assert r["outcome"] == "nofile" and not r["agent_timeout"] and not r["infra"]
    events = [json.loads(line) for line in
              (tmp_path / "runs" / "r" / "base" / "clamp" / "s1" / "events.jsonl").read_text().splitlines()]
    [res] = [e for e in events if e.get("type") == "tool_result" and e["name"] == "write"]
    assert res["is_error"] and "FIFO" in res["output"]
