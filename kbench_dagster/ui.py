"""`kbench ui` (make ui): `dagster dev` on 127.0.0.1 with a project DAGSTER_HOME; Ctrl-C or SIGTERM stops it all."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from kbench_dagster.pools import GPU_POOL, MODEL_SERVER_POOL, POOLS

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).with_name("dagster.yaml")


def prepare_home(home: Path, slots: int, gpus: int = 1) -> Path:
    """DAGSTER_HOME with our instance settings and the pool limits: the model server's slots, one per GPU."""
    home.mkdir(parents=True, exist_ok=True)
    text = re.sub(r"default_limit: \d+", f"default_limit: {slots}", TEMPLATE.read_text())
    (home / "dagster.yaml").write_text(text)
    set_pool_limits(home, slots, gpus)
    return home


def set_pool_limits(home: Path, slots: int, gpus: int = 1) -> None:
    """The pools' limits live in the instance's event log storage (SQLite here, PostgreSQL in a deployment): set
    once the instance's dagster.yaml is written."""
    import dagster as dg

    instance = dg.DagsterInstance.from_config(str(home))
    try:
        limits = {MODEL_SERVER_POOL: slots, GPU_POOL: gpus}
        for pool in POOLS:
            instance.event_log_storage.set_concurrency_slots(pool, limits[pool])
    finally:
        instance.dispose()


def start_dagster_dev(home: Path, port: int, env: dict | None = None, log=None) -> subprocess.Popen:
    """In its own process group with default signal handling, so the whole group can be stopped."""
    full_env = {**os.environ, **(env or {}), "DAGSTER_HOME": str(home)}
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "dagster"), "dev", "-h", "127.0.0.1", "-p", str(port),
         "-w", str(REPO / "workspace.yaml")],
        cwd=REPO, env=full_env, start_new_session=True, stdout=log, stderr=subprocess.STDOUT if log else None)


def stop_group(proc: subprocess.Popen, grace_s: float = 20.0) -> None:
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            os.killpg(proc.pid, signal.SIGKILL)  # children the parent left behind
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def pool_slots() -> int:
    """Partitions of agent_runs at once: KBENCH_SLOTS, else the most any configured server takes at once
    (sandbox.engine.slots.slot_capacity; each server's own limit is kept by the session slots)."""
    if os.environ.get("KBENCH_SLOTS"):
        return int(os.environ["KBENCH_SLOTS"])
    from kbench_dagster.resources import endpoints_from_env
    from sandbox.engine.slots import UNKNOWN_SERVER_SLOTS, slot_capacity

    key = os.environ.get("KBENCH_API_KEY")
    return max([slot_capacity(None, url, key) for url in endpoints_from_env().urls.values()]
               or [UNKNOWN_SERVER_SLOTS])


def run_ui(port: int = 3000, home: str | None = None) -> int:
    slots = pool_slots()
    dagster_home = prepare_home(Path(home) if home else REPO / ".state" / "dagster", slots)
    proc = start_dagster_dev(dagster_home, port)
    print(f"Dagster UI on http://127.0.0.1:{port} (DAGSTER_HOME={dagster_home}); Ctrl-C stops it", file=sys.stderr)

    def stop(signum, frame):
        stop_group(proc)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return proc.wait()
