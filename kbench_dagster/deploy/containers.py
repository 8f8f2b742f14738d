"""The containers a deployment leaves in the engine: its run containers, labelled by the launcher, and sandbox
containers whose run worker died before it could remove them.

A sandbox container carries no mark of the run that started it, but its user is a uid the worker leased for the
session (sandbox/isolation/uids.py) and held until the container was removed: a sandbox container whose uid nobody
holds any more was left behind by a worker that is gone. Sessions of live runs, the deployment's or any other
kbench process's, hold their uid, and are never touched.
"""

from __future__ import annotations

from kbench_dagster.deploy.instance import LABEL
from sandbox.containers.process import LABEL as SANDBOX_LABEL
from sandbox.isolation import uids


def run_containers(client, label: str) -> list:
    return client.containers.list(all=True, filters={"label": f"{LABEL}={label}"})


def orphan_sandboxes(client) -> list:
    pool = uids.pool()
    found = []
    for c in client.containers.list(all=True, filters={"label": SANDBOX_LABEL}):
        user = (c.attrs.get("Config") or {}).get("User") or ""
        uid = user.split(":")[0]
        if uid.isdigit() and int(uid) in pool.uids and not pool.held(int(uid)):
            found.append(c)
    return found


def remove(containers: list) -> int:
    import docker

    gone = 0
    for c in containers:
        try:
            c.remove(force=True)
            gone += 1
        except docker.errors.NotFound:
            gone += 1  # removed meanwhile (a sandbox ending on its own)
    return gone
