"""How make test runs: a module's shared fixture is built on one worker only, and a skip fails the targets that
exist to run everything. Each check runs a small pytest of its own against this conftest."""

import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")

SHARED = '''
import os, pytest

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    with open(os.environ["BUILD_LOG"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
    return 1

@pytest.mark.parametrize("n", range(12))
def test_uses_it(built, n):
    assert built == 1

@pytest.mark.parametrize("n", range(12))
def test_does_not(n):
    pass
'''


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=folder,
                          capture_output=True, text=True, timeout=300)


def _project(tmp_path: Path, body: str) -> Path:
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(CONFTEST, tests / "conftest.py")
    (tests / "test_shared.py").write_text(body)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


def test_a_modules_shared_fixture_is_built_on_one_worker_only(tmp_path, monkeypatch):
    folder = _project(tmp_path, SHARED)
    log = tmp_path / "built.log"
    monkeypatch.setenv("BUILD_LOG", str(log))
    cp = _pytest(folder, "-n", "2", "--dist", "loadgroup")
    assert cp.returncode == 0, cp.stdout[-2000:] + cp.stderr[-2000:]
    assert "24 passed" in cp.stdout
    assert len(log.read_text().splitlines()) == 1, log.read_text()


def test_a_skip_fails_where_every_test_must_run(tmp_path, monkeypatch):
    folder = _project(tmp_path, "import pytest\n\ndef test_needs_an_engine():\n    pytest.skip('no engine here')\n")
    monkeypatch.delenv("KBENCH_FAIL_ON_SKIP", raising=False)
    assert _pytest(folder).returncode == 0
    monkeypatch.setenv("KBENCH_FAIL_ON_SKIP", "1")
    cp = _pytest(folder)
    assert cp.returncode == 1 and "no engine here" in cp.stdout, cp.stdout[-2000:]
