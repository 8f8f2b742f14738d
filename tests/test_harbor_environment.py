"""What a Harbor task's environment settings become here: its work folder seen where its WORKDIR is (under or at
/home or /tmp, never over the sandbox's own folders), and [environment] cpus, memory_mb and storage_mb as the limits of
each of its sessions. Our own tasks (tests/data/harbor_tasks), changed per test."""

import shutil
from pathlib import Path

import pytest
from conftest import needs_bwrap

from sandbox.tasks import grading
from sandbox.tasks.validation import validate_tasks
from task_defs import load_suite
from task_defs.errors import TaskFileError
from task_defs.importers.harbor import load_harbor

OURS = Path(__file__).parent / "data" / "harbor_tasks"
pytestmark = pytest.mark.usefixtures("imported_cache")


def copy_ours(tmp_path, name):
    return shutil.copytree(OURS / name, tmp_path / "src" / name)


@pytest.mark.parametrize("inside", ["/etc", "/usr/src/app", "app", "/a/../b", "/home/kbench", "/home/kbench/app"])
def test_a_task_cannot_be_seen_over_the_sandboxs_own_folders(inside):
    from pydantic import ValidationError

    from task_defs.models import Task

    with pytest.raises(ValidationError, match="mount"):
        Task(id="t", title="title", category="terminal", tier="terminal", prompt="p", mounts={inside: "."})


@pytest.mark.parametrize("inside", ["/home/agent/app", "/tmp/project", "/home", "/tmp"])
def test_a_work_folder_under_or_at_home_or_tmp_is_seen_there(tmp_path, inside):
    """Many public tasks work in /home/<user>/... or /tmp/<project>, some in /home or /tmp itself: a folder of their
    own there is theirs (the sandbox keeps /home/kbench, its HOME, and /tmp itself); at /tmp the work folder is the
    session's /tmp, at /home HOME is /root, as for Docker's root. A work root under /tmp cannot show a work folder at
    /tmp: that is said, not run."""
    import tempfile

    folder = copy_ours(tmp_path, "tally-log-levels")
    for rel in ("environment/Dockerfile", "tests/check_levels.py", "solution/solve.sh", "instruction.md"):
        path = folder / rel
        path.write_text(path.read_text().replace("/app", inside))
    with open(folder / "solution" / "solve.sh", "a") as fh:  # the session's HOME and TMPDIR, left for the check
        fh.write(f'\necho "$HOME $TMPDIR" > {inside}/where.txt\n')
    [(fx, _)] = load_harbor(folder)[1]
    assert fx.mounts[inside] == "." and fx.unavailable is None and fx.image is None
    outside = Path(tempfile.mkdtemp(prefix="kbench-work-", dir="/var/tmp"))  # a work root outside /tmp
    outside.chmod(0o755)
    try:
        [v] = validate_tasks(list(load_suite(folder.parent).tasks), outside, workers=1, keep_work=True)
        assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v
        [where] = [p.read_text().split() for p in outside.rglob("where.txt")]
        assert where == [{"/home": "/root"}.get(inside, "/home/kbench"), "/tmp"]
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    if inside == "/tmp":
        [v] = validate_tasks(list(load_suite(folder.parent).tasks), tmp_path / "v", workers=1)
        assert v.status == "fail" and "it would hide" in v.reason and "KBENCH_WORK" in v.reason, v


@needs_bwrap
def test_task_toml_resources_are_the_limits_of_each_of_the_tasks_sessions(tmp_path):
    """[environment] memory_mb and storage_mb replace the run's memory and disk limits in every session of the task
    (cpus is the container's share: tests/test_harbor_images.py); a GPU asked for makes the task unavailable, and a
    size Harbor's older spelling gives ("2G") is refused naming the field."""
    from sandbox.isolation.bwrap import IsolationConfig
    from sandbox.isolation.limits import AGENT_LIMITS
    from sandbox.isolation.session import run_session

    folder = copy_ours(tmp_path, "tally-log-levels")
    toml = folder / "task.toml"
    base = 'version = "1.0"\n\n[agent]\ntimeout_sec = 300.0\n\n[environment]\n'
    toml.write_text(base + "cpus = 1.5\nmemory_mb = 96\nstorage_mb = 16\ngpus = 0\n")
    task = load_suite(folder.parent).get("tally_log_levels")
    assert (task.cpus, task.memory_mb, task.storage_mb, task.unavailable) == (1.5, 96, 16, None)
    [v] = validate_tasks([task], tmp_path / "v", workers=1)
    assert v.status == "ok" and v.reference.outcome == "pass", v  # the task's own work fits in what it asked for

    cfg = grading.task_isolation(task, IsolationConfig(mode="bwrap"))
    limits = AGENT_LIMITS.with_(timeout_s=60, mem_poll_s=0.2, disk_poll_s=0.2)  # the run's: 2 GB each
    for cmd, killed in (("python3 -c \"import time; b = b'x' * (300 << 20); time.sleep(30)\"", "rss"),
                        ("head -c 40M /dev/zero > big.bin; sleep 30", "disk")):
        work = tmp_path / f"w-{killed}"
        work.mkdir()
        res = run_session(["bash", "-c", cmd], work, limits=limits, cfg=cfg)
        assert not res.timed_out and killed in {k.reason for k in res.kills}, (killed, res.kills)

    toml.write_text(base + "gpus = 1\n")
    assert "environment.gpus = 1" in load_harbor(folder)[1][0][0].unavailable
    toml.write_text(base + 'memory_mb = "2G"\n')
    with pytest.raises(TaskFileError, match="environment.memory_mb"):
        load_harbor(folder)


@pytest.mark.parametrize("entry, bad", [(["/usr/local/bin/start"], None), (["/app/start.sh"], "/app/start.sh"),
                                        (["/bin/sh", "-c", "exec /app/run \"$@\""], "/app/run"),
                                        (["/bin/bash", "/tests/boot.sh"], "/tests/boot.sh"),
                                        (["python3", "/home/kbench/x.py"], "/home/kbench/x.py")])
def test_an_entrypoint_that_would_run_a_file_the_session_writes_is_refused_at_the_container(entry, bad):
    """An image's ENTRYPOINT runs as root before every session, the judge's too: a container is never made for one
    that names a place the session can write, however the command spells it."""
    from sandbox.containers.entrypoint import runs_writable

    assert runs_writable(entry, ["/var/tmp/work/t1", "/app", "/tests", "/logs", "/home/kbench", "/tmp"]) == bad
