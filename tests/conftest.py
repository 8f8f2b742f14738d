import os
import shutil
import signal
import socket
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path

# Tests never write into the user's results database or board: every default points at a throwaway folder.
_STATE = Path(tempfile.mkdtemp(prefix="kbench-test-state-"))
os.environ.setdefault("KBENCH_DB", str(_STATE / "kbench.duckdb"))
# Under pytest-xdist each worker leases sandbox uids from a range of its own, so a test that looks for processes
# left running under a sandbox uid sees only what its own worker started (never another worker's live session).
# Each worker's block is twice its pool: the 64 uids past the pool are the worker's too, for a test that makes a pool
# of its own there (test_session_accounting), where another worker's sessions would otherwise run.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw") and _WORKER[2:].isdigit():
    os.environ["KBENCH_UID_POOL_SIZE"] = "64"
    os.environ["KBENCH_UID_BASE"] = str(100_000 + 128 * int(_WORKER[2:]))

import pytest

from sandbox.isolation.bwrap import bwrap_path
from task_defs.canary import CANARY

REPO = Path(__file__).resolve().parent.parent

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed (make test installs it)")
ISOLATIONS = [pytest.param("bwrap", marks=needs_bwrap), "none"]
# The container sandbox, beside bwrap, for the tests of every sandbox guarantee. Marked `docker`: the default run
# leaves them out; `make test-integration` starts its own engine, builds the base image and runs them.
DOCKER = pytest.param("docker", marks=pytest.mark.docker)
SANDBOXES = [pytest.param("bwrap", marks=needs_bwrap), DOCKER]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under `--dist loadgroup` (make test) the tests of a module that builds a module- or session-scoped fixture of
    its own (a graded suite, a run, a board) share one worker: each worker would otherwise build it again. Those
    groups are the suite's longest units, so they go first and the single tests fill in around them: a long group
    handed out last would leave the other workers idle at the end."""
    grouped = set()
    for item in items:
        defs = getattr(item, "_fixtureinfo", None)
        shared = defs and any(d.scope in ("module", "session") and d.baseid.endswith(".py")
                              for fixturedefs in defs.name2fixturedefs.values() for d in fixturedefs)
        if shared:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
            grouped.add(item)
    items.sort(key=lambda item: item not in grouped)  # stable: each module keeps its own order


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under KBENCH_FAIL_ON_SKIP=1 (make test-real, make test-integration) a skipped test is a failure: those
    targets exist to run what the default suite cannot, and a missing engine or model must stop CI, not pass it."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("KBENCH_FAIL_ON_SKIP") == "1" and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped where KBENCH_FAIL_ON_SKIP=1 asks for every test to run: {reason}"


def sandbox_processes(cmdline: list[str]) -> list:
    """Running processes with exactly this command line that a session of this test's worker started: as root a
    session drops to a uid of the worker's own range, so another worker's live session never counts."""
    import psutil

    from sandbox.isolation.uids import pool

    found = [p for p in psutil.process_iter(["cmdline", "uids"]) if p.info["cmdline"] == cmdline]
    if os.geteuid() != 0:
        return found
    return [p for p in found if p.info["uids"] and p.info["uids"].real in pool().uids]


def wait_for(check, timeout_s: float, what: str):
    """Poll `check` until it returns something true (returned); the timeout is a safety stop, never a verdict on
    speed: it fails the test only when the thing never happens."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s:.0f}s waiting for {what}")


@pytest.fixture
def imported_cache(tmp_path, monkeypatch):
    """Imported tasks' folders and image records of the test's own; no engine answers, whatever this machine runs,
    so an image task's state is the same on every machine."""
    from sandbox.containers import task_images
    from sandbox.tasks import grading

    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(task_images.CACHE_ENV, str(tmp_path / "env-images"))
    monkeypatch.setenv("KBENCH_DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    grading.image_missing.cache_clear()


@pytest.fixture
def work(tmp_path) -> Path:
    """A work root outside the repository, like ~/kbench-work."""
    root = tmp_path / "kbench-work"
    root.mkdir()
    root.chmod(0o755)
    return root


def write_task(suite_dir: Path, task_id: str, toml: str, files: dict[str, str], canary: bool = True) -> Path:
    """A task folder from text; every file gets the canary unless told otherwise."""
    folder = suite_dir / task_id
    folder.mkdir(parents=True)
    body = textwrap.dedent(toml).strip() + "\n"
    (folder / "task.toml").write_text((f"# {CANARY}\n" if canary else "") + body)
    for rel, text in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text((f"# {CANARY}\n" if canary else "") + textwrap.dedent(text).lstrip())
    return folder


SQUARE_TOML = """
id = "{id}"
title = "square a number"
category = "programming"
tier = "easy"
language = "python"
file = "sq.py"
prompt = "Write sq.py with square(x) returning x*x."
"""

SQUARE_TEST = """
import kbtest as kb
m = kb.load("sq.py")
sq = kb.func(m, "square")

@kb.case
def small():
    kb.eq(sq(3), 9, "square(3)")

@kb.case
def negative():
    kb.eq(sq(-4), 16, "square(-4)")

@kb.case
def zero():
    kb.eq(sq(0), 0, "square(0)")

kb.main()
"""


@pytest.fixture
def square_suite(tmp_path) -> Path:
    """A one-task suite (outside the repo) used to drive grading with agent files of our choosing."""
    suite = tmp_path / "suite"
    write_task(suite, "square", SQUARE_TOML.format(id="square"),
               {"tests/test_task.py": SQUARE_TEST, "solution/sq.py": "def square(x):\n    return x * x\n"})
    return suite


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


class LoopbackListener:
    """A listener on the host's loopback, standing in for a host service (the model server, the Dagster UI,
    another session): `port`, and `heard`, the first bytes of each connection it accepted."""

    def __init__(self):
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.heard: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.heard.append(conn.recv(4096))
                except OSError:
                    self.heard.append(b"")

    def wait_for(self, n: int, timeout: float = 5.0) -> None:
        """Give connections in flight a moment to be accepted (used where something is expected to arrive)."""
        import time

        end = time.monotonic() + timeout
        while len(self.heard) < n and time.monotonic() < end:
            time.sleep(0.05)

    def close(self):
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def listener():
    lst = LoopbackListener()
    yield lst
    lst.close()


@pytest.fixture
def suite_dir(tmp_path) -> Path:
    """A copy of two tasks of the suite (fizz and counterrors), so a test can change a hidden test."""
    from task_defs.loader import suite_root

    root = tmp_path / "suite"
    for t in ("fizz", "counterrors"):
        shutil.copytree(suite_root() / t, root / t)
    return root


@pytest.fixture
def server():
    """The scripted oracle server, on a free port of 127.0.0.1."""
    from sandbox.servers.scripted import ScriptedServer

    with ScriptedServer(persona="oracle", port=0) as srv:
        yield srv


def kill_mid_run(cmd: list[str], run_dir: Path, at_least: int = 5) -> int:
    """Start a kbench command in its own session, SIGKILL the whole session once `at_least` attempts of seed 1 are
    finished (a result.json, or a ledger line), and return how many the killed run left."""
    from sandbox.engine.attempt_reader import done_keys

    def finished() -> int:
        return sum(k.endswith("/s1") for k in done_keys(run_dir))

    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60  # a safety stop: the assertions below are on counts, never on time
    while finished() < at_least and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return finished()
