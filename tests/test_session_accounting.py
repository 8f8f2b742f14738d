"""A session's limits are its own and cover everything it holds: its own process budget (one uid per session, so
a thread hog cannot starve a concurrent session), threads counted as tasks, memory summed over its processes with
shared memory (memfd, /dev/shm) counted, and disk that includes files deleted but still open and every writable
bind. Real bwrap sessions; each hostile command would have gone unpunished before."""

import os
import subprocess
import threading
import time

import psutil
import pytest
from conftest import fresh, needs_bwrap

from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, MB
from sandbox.isolation.session import run_session
from sandbox.isolation.uids import UidPool, pool

BWRAP = IsolationConfig(mode="bwrap")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root can give each session its own uid")

# Polls fast so that each test ends soon after its limit is crossed; the timeout is only a safety stop.
# The session's timeout is only a safety stop: every test here expects a watchdog kill, which on a busy machine
# (two CPU hogs beside make test) can take well over half a minute to come; the hogs sleep past it.
QUICK = AGENT_LIMITS.with_(timeout_s=600, mem_poll_s=0.2, disk_poll_s=0.2)


def session(work, name, cmd, limits=QUICK, cfg=BWRAP, **kw):
    wd = fresh(work / name)
    return run_session(["bash", "-c", cmd], wd, limits=limits, cfg=cfg, log_path=work / "watchdog.log", **kw), wd


def py(code: str) -> str:
    return f"python3 -c '{code}'"


THREAD_HOG = py("""
import os, threading, time
threading.stack_size(64 * 1024)
stop, started = threading.Event(), 0
try:
    for _ in range({n}):
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
except RuntimeError:
    pass
open("ready", "w").write(str(started))
while not os.path.exists("done"):
    time.sleep(0.05)
""")


@needs_bwrap
@needs_root
def test_a_thread_hog_does_not_stop_a_concurrent_session_from_starting_processes(work):
    """Both sessions may run 3000 tasks. The hog takes all of its own budget with threads in one process (the
    watchdog is told to allow it); the other session must still start 50 processes. With one uid for every
    sandbox, the hog's threads spent the other's budget too and its forks failed with EAGAIN."""
    limits = QUICK.with_(nproc_rlimit=3000, max_procs=100_000)
    hog: dict = {}
    thread = threading.Thread(target=lambda: hog.update(res=session(work, "hog", THREAD_HOG.format(n=3000), limits)[0]))
    thread.start()
    ready = work / "hog" / "ready"
    deadline = time.monotonic() + 30
    while not ready.exists() and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert ready.exists(), "the thread hog never got ready"
        assert int(ready.read_text() or 0) > 2900
        spawn = py("import subprocess; ps = [subprocess.Popen([\"sleep\", \"0.5\"]) for _ in range(50)]; "
                   "[p.wait() for p in ps]; print(\"started\", len(ps))")
        res, _ = session(work, "other", spawn, limits)
    finally:
        (work / "hog" / "done").touch()
        thread.join(60)
    assert res.returncode == 0 and "started 50" in res.tail, res.tail
    assert res.run_as != hog["res"].run_as
    assert {res.run_as, hog["res"].run_as} <= {f"uid {u}" for u in pool().uids}


@needs_bwrap
def test_threads_count_against_the_process_limit(work):
    """One process, 300 threads, a limit of 100 tasks: the whole session is stopped as a process bomb."""
    res, _ = session(work, "threads", THREAD_HOG.format(n=300), QUICK.with_(max_procs=100))
    assert res.session_killed == "procs" and not res.timed_out, res.tail
    assert "tasks (threads counted)" in (work / "watchdog.log").read_text()


@needs_bwrap
def test_processes_each_under_the_memory_limit_are_killed_together(work):
    """Four processes of 80 MB against a 200 MB session: none is over on its own, the session is."""
    hog = py("import time; b = b\"x\" * (80 << 20); time.sleep(900)")
    res, _ = session(work, "mem", f"for i in 1 2 3 4; do {hog} & done; wait",
                     QUICK.with_(rss_limit_bytes=200 * MB))
    assert res.session_killed == "memory" and not res.timed_out, res.tail
    assert not [k for k in res.kills if k.reason == "rss"]
    assert "reason=memory" in (work / "watchdog.log").read_text()


MEMFD_HELD = py("""
import os, time
fd = os.memfd_create("hoard")
for _ in range(150):
    os.write(fd, b"m" * (1 << 20))
time.sleep(900)
""")

MEMFD_MAPPED = py("""
import mmap, os, time
fd = os.memfd_create("hoard")
os.ftruncate(fd, 150 << 20)
m = mmap.mmap(fd, 150 << 20)
os.close(fd)
for i in range(0, 150 << 20, 4096):
    m[i] = 1
time.sleep(900)
""")


@needs_bwrap
@pytest.mark.parametrize("code", [MEMFD_HELD, MEMFD_MAPPED], ids=["held", "mapped"])
def test_a_memfd_counts_as_memory(work, code):
    """150 MB in a memfd against a 100 MB limit. Held only by its descriptor it is in no process's resident size;
    mapped with the descriptor closed it is found through the mapping. Its holder is killed."""
    res, _ = session(work, "memfd", f"{code}; echo exit=$?", QUICK.with_(rss_limit_bytes=100 * MB))
    assert [k.reason for k in res.kills if k.pid] == ["rss"], res.kills
    assert "exit=137" in res.tail and not res.timed_out


@needs_bwrap
def test_shared_memory_is_counted_once(work):
    """One 60 MB memfd mapped by four processes is 60 MB, not 240: a 100 MB session is left alone."""
    code = py("""
import mmap, os, time
fd = os.memfd_create("shared")
os.ftruncate(fd, 60 << 20)
m = mmap.mmap(fd, 60 << 20)
for i in range(0, 60 << 20, 1 << 20):
    m[i:i + (1 << 20)] = b"s" * (1 << 20)
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    children.append(pid)
time.sleep(2)
for pid in children:
    os.waitpid(pid, 0)
""")
    res, _ = session(work, "shared", f"{code}; echo exit=$?", QUICK.with_(rss_limit_bytes=100 * MB))
    assert res.kills == [] and res.session_killed is None, res.kills
    assert "exit=0" in res.tail


@needs_bwrap
def test_files_left_in_dev_shm_count_as_memory(work):
    """tmpfs files nobody holds open (written and closed in the sandbox's /dev/shm) are memory too: two of 60 MB,
    each writer under a 100 MB limit, together over it. The dropped uid cannot write there at all, so this runs
    as root without capabilities, as a non-root kbench would."""
    cmd = "for i in 1 2; do head -c 60M /dev/zero > /dev/shm/blob$i; done; echo written; sleep 60"
    res, _ = session(work, "shm", cmd, QUICK.with_(rss_limit_bytes=100 * MB),
                     cfg=IsolationConfig(mode="bwrap", drop_uid=False))
    assert res.session_killed == "memory" and not res.timed_out, res.tail
    # the kill may come while the second blob is still being written (the first 60 MB and part of the second
    # already pass the limit): which line the session reached depends on the machine's speed, the reason does not
    assert not [k for k in res.kills if k.reason == "rss"], res.kills


@needs_bwrap
def test_a_tmpfs_too_big_to_count_ends_the_session(work):
    """100,001 empty files in /dev/shm: a look walks at most 100,000 entries, so what they hold is unknown and the
    session is ended rather than trusted (each file is an inode of kernel memory, too)."""
    code = py("""
import os, time
for i in range(100_001):
    os.close(os.open(f"/dev/shm/f{i}", os.O_CREAT | os.O_WRONLY))
print("made", flush=True)
time.sleep(900)
""")
    res, _ = session(work, "many", code, cfg=IsolationConfig(mode="bwrap", drop_uid=False))
    assert res.session_killed == "memory" and not res.timed_out, res.tail
    assert "cannot be counted" in (work / "watchdog.log").read_text()


SYSV_DETACHED = py("""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
ids = []
for _ in range(3):
    sid = libc.shmget(0, 60 << 20, 0o1600)
    addr = libc.shmat(sid, None, 0)
    ctypes.memset(addr, 1, 60 << 20)
    libc.shmdt(ctypes.c_void_p(addr))
    ids.append(sid)
stat = ctypes.create_string_buffer(512)
print("kept", sum(libc.shmctl(sid, 2, stat) == 0 for sid in ids))
""")


@needs_bwrap
@needs_root
def test_a_detached_sysv_segment_cannot_hold_memory(work):
    """180 MB in SysV segments, each detached after filling: no process maps them, so no look at processes could
    see them. The sandbox has the kernel remove a segment once nothing has it attached; attached, it is mapped."""
    res, _ = session(work, "sysv", SYSV_DETACHED, QUICK.with_(rss_limit_bytes=100 * MB))
    assert "kept 0" in res.tail, res.tail


@needs_bwrap
def test_an_open_deleted_file_counts_as_disk(work):
    """100 MB written to a file whose name was removed at once: no folder walk sees it, a 50 MB disk limit does."""
    code = py("""
import os, time
f = open("blob", "wb")
os.unlink("blob")
for _ in range(100):
    f.write(b"d" * (1 << 20))
f.flush()
time.sleep(900)
""")
    res, wd = session(work, "unlinked", code, QUICK.with_(disk_bytes=50 * MB))
    assert res.session_killed == "disk" and not res.timed_out, res.tail
    assert "deleted files still open" in (work / "watchdog.log").read_text()
    assert not (wd / "blob").exists()


@needs_bwrap
def test_a_writable_bind_counts_as_disk(work):
    """pi's config folder is bound writable beside the work folder: what the session writes there is its disk."""
    cfg_dir = fresh(work / "pi-agent")
    res, _ = session(work, "bind", "head -c 80M /dev/zero > /opt/kbench/pi-agent/blob; sleep 60",
                     QUICK.with_(disk_bytes=50 * MB), rw_binds=[(cfg_dir, "/opt/kbench/pi-agent")])
    assert res.session_killed == "disk" and not res.timed_out, res.tail


def test_a_uid_pool_refuses_a_range_someone_owns(tmp_path):
    """uid 65534 is nobody's account: a pool over it would share that account's process budget and files."""
    with pytest.raises(RuntimeError, match="overlaps user nobody"):
        UidPool(base=65530, size=10, root=tmp_path)


@needs_root
def test_a_uid_is_leased_once_and_a_process_outliving_its_lease_is_a_stray(tmp_path):
    """Two sessions at once never share a uid; a process still running as a uid nobody holds is a stray (what the
    leak checks of the other sandbox tests look for), and that uid is not handed out while it runs."""
    uids = UidPool(base=pool().uids.stop, size=3, root=tmp_path / "uids")  # no session's uids (tests/conftest.py)
    with uids.lease() as first:
        with uids.lease() as second:
            assert first != second
        sleeper = subprocess.Popen(["setpriv", f"--reuid={first}", f"--regid={first}", "--clear-groups", "sleep", "30"])
        try:
            deadline = time.monotonic() + 10
            while psutil.Process(sleeper.pid).uids().real != first and time.monotonic() < deadline:
                time.sleep(0.01)
            assert uids.strays() == []  # its uid is held: it belongs to a live session
        except BaseException:
            sleeper.kill()
            raise
    try:
        assert [p.pid for p in uids.strays()] == [sleeper.pid]
        with uids.lease() as again:
            assert again != first
    finally:
        sleeper.kill()
        sleeper.wait()
