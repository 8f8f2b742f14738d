"""The deployment's host processes: started in their own process groups, recorded by pid and start time (a pid
alone could be a later process's), stopped group by group, and looked for afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import psutil


def spawn(cmd: list[str], cwd: Path, env: dict[str, str], log_path: Path) -> dict:
    """Start `cmd` as the leader of a new session; its record for the state file."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    return {"pid": proc.pid, "started": psutil.Process(proc.pid).create_time(), "log": str(log_path)}


def alive(record: dict | None) -> bool:
    """The recorded process still runs (a zombie does not: `kbench deploy start` exited and nobody reaped it)."""
    if not record:
        return False
    try:
        p = psutil.Process(record["pid"])
        return abs(p.create_time() - record["started"]) < 0.01 and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def group_members(pgid: int) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["status"]):
        try:
            if os.getpgid(p.pid) == pgid and p.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (ProcessLookupError, psutil.Error):
            continue
    return found


def stop_group(record: dict, grace_s: float = 20.0) -> None:
    """TERM to the whole group (the code servers Dagster started are in it), KILL to whatever is left after."""
    if not alive(record):
        return
    pgid = record["pid"]
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not group_members(pgid):
            return


def _cwd_under(p: psutil.Process, folder: Path) -> bool:
    try:
        cwd = Path(p.cwd())
    except psutil.Error:
        return False
    return cwd == folder or folder in cwd.parents


def _env_of(p: psutil.Process) -> dict:
    try:
        return p.environ()
    except psutil.Error:
        return {}


def leftovers(home: Path, cluster_folder: Path) -> list[str]:
    """Processes of the deployment that still run: anything started with its DAGSTER_HOME (the daemon, the
    webserver, their code servers, and run workers, which the host sees in its pid namespace), and PostgreSQL's
    processes, which all work in the cluster's folder."""
    found = []
    for p in psutil.process_iter(["status", "name"]):
        if p.pid == os.getpid() or p.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            cmd = " ".join(p.cmdline())
        except psutil.Error:
            continue
        # a shell that merely exported the deployment's DAGSTER_HOME is no part of it; a dagster process is
        if ("dagster" in cmd and _env_of(p).get("DAGSTER_HOME") == str(home)) or _cwd_under(p, cluster_folder):
            found.append(f"pid {p.pid} ({cmd[:120] or p.info['name']})")
    return found
