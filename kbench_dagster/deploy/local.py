"""`kbench deploy start|stop|status`: the whole local deployment (see the package's docstring for its layout).

Configured as `make ui` is: KBENCH_ENDPOINTS, KBENCH_AGENT, KBENCH_TASKS, KBENCH_SLOTS and the other KBENCH_*
variables of the shell that starts it reach the daemon, the webserver and every run container. The paths among
them are made absolute, since a run container works in the image's copy of the repository.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import urllib.request
from pathlib import Path

from kbench_dagster.deploy import code_image, containers, procs
from kbench_dagster.deploy.instance import RunContainers, write_home
from kbench_dagster.deploy.postgres import PASSWORD_ENV, Cluster
from sandbox.containers import engine
from sandbox.containers.image import image_name as sandbox_image
from sandbox.engine import slots
from sandbox.isolation import uids
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import check_outside_repo, default_work_root

REPO = code_image.REPO
DEFAULT_PORT = 3000
SERVICES = ("daemon", "webserver")


class Deployment:
    """The deployment whose folder is `root` (KBENCH_DEPLOY_DIR, else .state/deploy)."""

    def __init__(self, root: Path | None = None):
        self.root = Path(root or os.environ.get("KBENCH_DEPLOY_DIR") or REPO / ".state" / "deploy").resolve()
        self.home = self.root / "dagster_home"
        self.logs = self.root / "logs"
        self.tmp = self.root / "tmp"
        self.state_file = self.root / "state.json"
        self.cluster = Cluster(self.root / "postgres", self.root / "pg-password")

    @property
    def label(self) -> str:
        return str(self.root)

    def state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _save(self, state: dict) -> None:
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2))
        tmp.replace(self.state_file)

    def url(self) -> str | None:
        port = self.state().get("port")
        return f"http://127.0.0.1:{port}" if port else None

    def instance_env(self) -> dict[str, str]:
        """What a `dagster` command (a backfill, `dagster run list`) needs to open this deployment's instance."""
        return {"DAGSTER_HOME": str(self.home), PASSWORD_ENV: self.cluster.password()}

    # --- what runs ---------------------------------------------------------------------------------------------

    def services_alive(self) -> dict[str, bool]:
        state = self.state()
        return {name: procs.alive(state.get(name)) for name in SERVICES}

    def running(self) -> bool:
        return all(self.services_alive().values()) and self.cluster.running_port() is not None

    # --- the settings every part shares -----------------------------------------------------------------------

    def settings_env(self) -> dict[str, str]:
        """The KBENCH_* settings of this shell with the deployment's own; paths absolute."""
        env = {k: v for k, v in os.environ.items() if k.startswith("KBENCH_")}
        store = Path(os.environ.get("KBENCH_DB") or self.root / "store" / "results")
        if store.suffix == ".duckdb":
            raise RuntimeError(f"KBENCH_DB={store} is a DuckDB file, which one writer holds at a time; the "
                               "deployment's run containers write at once: give KBENCH_DB a folder (the Parquet "
                               "store), or unset it for the deployment's own")
        runs = Path(os.environ.get("KBENCH_RUNS") or "runs")
        env.update(KBENCH_DB=str(store.resolve()), KBENCH_RUNS=str((REPO / runs).resolve()),
                   KBENCH_WORK=str(check_outside_repo(default_work_root())), KBENCH_ISOLATION="docker",
                   KBENCH_DOCKER_HOST=engine.engine_url(), KBENCH_UIDS_DIR=str(uids.default_root()),
                   KBENCH_SLOTS_DIR=str(slots.default_root()), KBENCH_SANDBOX_IMAGE=sandbox_image())
        return env

    def run_containers(self, image: str, env: dict[str, str]) -> RunContainers:
        # The board is rebuilt by replacing its folder (the store's sibling, ResultsDB.board_dir), and a mount
        # point cannot be removed: the folder holding both is what is mounted.
        results = Path(env["KBENCH_DB"]).parent
        if results == Path("/"):
            raise RuntimeError(f"KBENCH_DB={env['KBENCH_DB']}: the run containers mount the folder holding the store "
                               "and the board, which cannot be /: give the store a folder of its own")
        rw = [Path(env["KBENCH_WORK"]), Path(env["KBENCH_RUNS"]), results, self.home, self.tmp,
              Path.home() / ".cache" / "kbench" / "node"]  # pi's exec-only copy of node, which its sandbox binds
        private = [Path(env["KBENCH_UIDS_DIR"]), Path(env["KBENCH_SLOTS_DIR"])]  # checked to be root's, 0700
        for folder in rw:
            folder.mkdir(parents=True, exist_ok=True)
        for folder in private:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        mounts = {str(p): "rw" for p in rw + private}
        if (REPO / "node_modules").is_dir():
            mounts[str(REPO / "node_modules")] = "ro"  # pi, bound into its sandboxes from here
        url = env["KBENCH_DOCKER_HOST"]
        if url.startswith("unix://"):
            mounts[url.removeprefix("unix://")] = "rw"
        names = [*env, "DAGSTER_HOME", "DOCKER_HOST", PASSWORD_ENV]
        return RunContainers(image=image, label=self.label, mounts=mounts,
                             env=[*names, f"TMPDIR={self.tmp}"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_taken(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _tail(path: str, n: int = 2000) -> str:
    try:
        return Path(path).read_bytes()[-n:].decode("utf-8", "replace")
    except OSError:
        return ""


def _webserver_up(port: int) -> bool:
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2).status == 200
    except OSError:
        return False


def _start_services(d: Deployment, port: int, pg_port: int, image: str, settings: dict, wait_s: float) -> None:
    """DAGSTER_HOME, then the daemon and the webserver, each the leader of its own process group; returns once the
    webserver answers."""
    from kbench_dagster.ui import pool_slots

    env = {**os.environ, **settings, "DAGSTER_HOME": str(d.home), "DOCKER_HOST": settings["KBENCH_DOCKER_HOST"],
           PASSWORD_ENV: d.cluster.password()}
    os.environ[PASSWORD_ENV] = env[PASSWORD_ENV]  # for the instance write_home opens here
    write_home(d.home, pg_port, d.run_containers(image, settings), pool_slots())
    bin_dir = Path(sys.executable).parent
    workspace = str(REPO / "workspace.yaml")
    state = {"port": port, "pg_port": pg_port, "image": image, "started_at": time.time()}
    state["daemon"] = procs.spawn([str(bin_dir / "dagster-daemon"), "run", "-w", workspace], REPO, env,
                                  d.logs / "daemon.log")
    state["webserver"] = procs.spawn([str(bin_dir / "dagster-webserver"), "-h", "127.0.0.1", "-p", str(port),
                                      "-w", workspace], REPO, env, d.logs / "webserver.log")
    d._save(state)
    deadline = time.monotonic() + wait_s
    while not _webserver_up(port):
        dead = [n for n in SERVICES if not procs.alive(state[n])]
        if dead or time.monotonic() > deadline:
            why = f"{dead[0]} exited" if dead else f"the webserver did not answer within {wait_s:.0f}s"
            logs = "\n".join(f"--- {n}.log\n{_tail(state[n]['log'])}" for n in SERVICES)
            raise RuntimeError(f"the deployment did not start ({why}); it was stopped again\n{logs}")
        time.sleep(1)


def start(port: int | None = None, log=print, wait_s: float = 180.0) -> str:
    """Start whatever is not running; the UI's URL. A part left running alone is stopped first."""
    d = Deployment()
    client = engine.client()
    if d.running():
        log(f"the deployment already runs: {d.url()} (`kbench deploy status`)")
        return d.url() or ""
    alive = [n for n, up in d.services_alive().items() if up]
    if alive or d.cluster.running_port() is not None:
        log(f"part of the deployment runs ({', '.join(alive) or 'PostgreSQL'}): stopping it to start it whole")
        stop(d, log=log)
    port = port or int(os.environ.get("KBENCH_DEPLOY_PORT") or DEFAULT_PORT)
    if _port_taken(port):
        raise RuntimeError(f"port {port} of 127.0.0.1 is taken: start with --port N (or KBENCH_DEPLOY_PORT)")
    d.root.mkdir(parents=True, exist_ok=True)
    d.root.chmod(0o755)  # the postgres account passes through it to its own folder
    for folder in (d.logs, d.tmp):
        folder.mkdir(exist_ok=True)
    d.tmp.chmod(0o1777)  # the run workers' /tmp: the same mode

    settings = d.settings_env()  # its complaints come before anything starts
    image = code_image.build(client, log=log)
    how = f"built in {image.seconds:.0f}s from a {image.context_bytes / 2**20:.0f} MiB context" if image.built \
        else "unchanged, reused"
    log(f"code image {image.name} ({image.size_bytes / 2**30:.2f} GiB): {how}")
    pg_port = d.cluster.start(_free_port())
    log(f"PostgreSQL on 127.0.0.1:{pg_port} (cluster {d.cluster.data})")
    try:
        _start_services(d, port, pg_port, image.name, settings, wait_s)
    except BaseException:
        stop(d, log=lambda *_: None)  # no half deployment is left for the next start to find
        raise
    url = f"http://127.0.0.1:{port}"
    log(f"Dagster UI on {url}; runs start in containers of {image.name}; `kbench deploy stop` ends it all\n"
        f"the dagster CLI reaches it with DAGSTER_HOME={d.home} and "
        f"{PASSWORD_ENV}=\"$(cat {d.cluster.password_file})\"")
    return url


def stop(d: Deployment | None = None, log=print, settle_s: float = 15.0) -> list[str]:
    """Stop everything of the deployment, then look for anything left: what is, as lines (empty: nothing)."""
    d = d or Deployment()
    state = d.state()
    said = []
    for name in SERVICES:  # the daemon first: it launches no run while the rest goes
        if procs.alive(state.get(name)):
            procs.stop_group(state[name])
            said.append(f"{name} (pid {state[name]['pid']})")
    try:
        client = engine.client(timeout=30)
    except engine.EngineUnavailable as e:
        client = None  # the processes and the database still go; the containers went with the engine, if at all
        log(f"warning: containers not checked: {e}")
    if client:
        runs = containers.run_containers(client, d.label)
        if runs:
            said.append(f"{containers.remove(runs)} run containers")
        orphans = containers.orphan_sandboxes(client)
        if orphans:
            said.append(f"{containers.remove(orphans)} sandbox containers of dead runs")
    if d.cluster.stop():
        said.append("PostgreSQL")
    if d.tmp.exists():
        remove_tree(d.tmp, ignore_errors=True)  # sandbox uids wrote there: any tree can be there
    if d.state_file.exists():
        d._save({k: v for k, v in state.items() if k not in SERVICES})

    deadline = time.monotonic() + settle_s
    while True:
        left = procs.leftovers(d.home, d.cluster.folder)
        if client:
            left += [f"container {c.short_id} ({c.status})" for c in containers.run_containers(client, d.label)]
            left += [f"sandbox container {c.short_id}" for c in containers.orphan_sandboxes(client)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if not said and not left:
        log("the deployment was not running; nothing of it is left (no process, no container)")
    elif left:
        log(f"stopped {', '.join(said) or 'nothing'}; still there:\n  " + "\n  ".join(left))
    else:
        log(f"stopped {', '.join(said)}; nothing of the deployment is left (no process, no container)")
    return left


def status(log=print) -> bool:
    """What runs; True when the whole deployment does."""
    d = Deployment()
    state = d.state()
    alive = d.services_alive()
    pg = d.cluster.running_port()
    log(f"deployment folder {d.root}")
    for name in SERVICES:
        log(f"  {name:10} {'running, pid ' + str(state[name]['pid']) if alive[name] else 'stopped'}")
    log(f"  {'postgres':10} {f'running on 127.0.0.1:{pg}' if pg else 'stopped'}")
    try:
        client = engine.client(timeout=10)
        runs = containers.run_containers(client, d.label)
        counts = {s: sum(c.status == s for c in runs) for s in sorted({c.status for c in runs})}
        shown = ", ".join(f"{n} {s}" for s, n in counts.items()) or "none"
        log(f"  {'runs':10} containers: {shown}; code image {state.get('image', '(none yet)')}")
        orphans = containers.orphan_sandboxes(client)
        if orphans:
            log(f"  {'sandboxes':10} {len(orphans)} left by dead run workers (`kbench deploy stop` removes them)")
    except engine.EngineUnavailable as e:
        log(f"  {'runs':10} unknown: {e}")
    up = all(alive.values()) and pg is not None
    log(f"Dagster UI on {d.url()}" if up else "the deployment is not (wholly) running")
    return up
