"""A pytest plugin that records the CPU each test's phases used, into one JSON line per phase. As root on a cgroup v1
machine every phase runs in a cpuacct cgroup of its own, so every process it starts counts, the sandboxes' too
(a killed sandbox's processes are reaped inside their own pid namespace, where the worker's rusage never sees them);
elsewhere the worker's rusage, its own and its reaped children's, is a lower bound.

    .venv/bin/python bench/suite_cpu.py [N]     make test's pytest run with this plugin, then the N largest shares

(by hand: `pytest -p bench.suite_cpu ...` with KBENCH_TEST_CPU=PREFIX, one file PREFIX.<worker> a worker)."""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path

import pytest


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _timed(item, "teardown")


CPUACCT = Path("/sys/fs/cgroup/cpuacct")
_seq = itertools.count()


def _timed(item, phase: str):
    path = os.environ.get("KBENCH_TEST_CPU")
    if not path:  # loaded but not asked: no groups, no files
        yield
        return
    group = None
    if os.geteuid() == 0 and (CPUACCT / "tasks").exists():
        group = CPUACCT / f"kbench-test-{os.getpid()}-{next(_seq)}"
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    c0, w0 = _cpu(), time.monotonic()
    yield
    cpu = _cpu() - c0
    if group is not None:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        try:
            group.rmdir()  # a process it started that still runs keeps it: an empty group left behind costs nothing
        except OSError:
            pass
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(f"{path}.{worker}", "a") as f:
        f.write(json.dumps({"test": item.nodeid, "phase": phase, "cpu_s": round(cpu, 3),
                            "wall_s": round(time.monotonic() - w0, 3)}) + "\n")


def main() -> None:
    import collections
    import subprocess
    import sys
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from suite_wall import REPO, pytest_command

    top = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    prefix = Path(tempfile.mkdtemp(prefix="kbench-suite-cpu-")) / "cpu"
    started = time.monotonic()
    cp = subprocess.run(pytest_command() + ["-p", "bench.suite_cpu"], cwd=REPO, capture_output=True, text=True,
                        env={**os.environ, "KBENCH_TEST_CPU": str(prefix)})
    wall = time.monotonic() - started
    rows = [json.loads(line) for f in prefix.parent.glob("cpu.*") for line in f.read_text().splitlines()]
    by_module = collections.Counter()
    for r in rows:
        by_module[r["test"].split("::")[0]] += r["cpu_s"]
    print(f"{cp.stdout.strip().splitlines()[-1] if cp.stdout.strip() else cp.stderr[-300:]}")
    for line in cp.stdout.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            print(line)
    print(f"wall {wall / 60:.1f} min; CPU in tests {sum(r['cpu_s'] for r in rows):.0f} s")
    for module, cpu in by_module.most_common(top):
        print(f"{cpu:8.1f} CPU-s  {module}")
    print()
    for r in sorted(rows, key=lambda r: -r["cpu_s"])[:top]:
        print(f"{r['cpu_s']:8.1f} CPU-s {r['wall_s']:7.1f} s  {r['phase']:8} {r['test']}")


if __name__ == "__main__":
    main()
