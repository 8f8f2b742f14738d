"""Opt-in (make test-integration): `kbench deploy`, the local deployment, end to end: PostgreSQL storage, the daemon
and the webserver as host processes, every run in a container of the code image, sandboxes as sibling containers;
and `kbench deploy stop` leaving nothing behind."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import psutil
import pytest
from conftest import REPO, free_port, wait_for

from kbench_dagster.deploy import containers
from kbench_dagster.deploy.instance import LABEL
from kbench_dagster.deploy.local import Deployment
from kbench_dagster.deploy.postgres import PASSWORD_ENV
from kbench_dagster.parquet_store import open_store
from sandbox.containers import engine
from sandbox.servers.scripted import ScriptedServer

pytestmark = [pytest.mark.integration, pytest.mark.docker]

BIN = Path(sys.executable).parent
MODEL_FAILURES = {"wrong", "nofile", "crash", "timeout"}  # what a model is scored with: never an infra cut's due


def kbench_deploy(action: str, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "kbench"), "deploy", action, *extra], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900)


@contextmanager
def deployment(tmp_path: Path, endpoints: dict[str, str], monkeypatch):
    """A started deployment of its own (its folder under /tmp: the postgres account must pass through its
    parents, which pytest's tmp_path closes) and the environment it was started with."""
    root = Path(tempfile.mkdtemp(prefix="kbench-deploy-test-", dir="/tmp"))
    root.chmod(0o755)
    env = {**os.environ, "KBENCH_DEPLOY_DIR": str(root), "KBENCH_AGENT": "builtin", "KBENCH_TASKS": "fizz,counterrors",
           "KBENCH_ENDPOINTS": ",".join(f"{name}={url}" for name, url in endpoints.items()),
           "KBENCH_RUNS": str(tmp_path / "runs"), "KBENCH_DB": str(tmp_path / "store" / "results"),
           "KBENCH_WORK": str(tmp_path / "work"), "KBENCH_SLOTS": "2"}
    d = Deployment(root)
    try:
        t0 = time.monotonic()
        cp = kbench_deploy("start", env, "--port", str(free_port()))
        print(f"kbench deploy start: {time.monotonic() - t0:.1f}s\n{cp.stdout}")
        assert cp.returncode == 0, cp.stdout[-3000:] + cp.stderr[-3000:]
        monkeypatch.setenv(PASSWORD_ENV, d.cluster.password())
        yield d, env
    finally:
        kbench_deploy("stop", env)
        shutil.rmtree(root, ignore_errors=True)


def register(d: Deployment, store_path: str, models: dict[str, str]) -> None:
    """Each model key (also its model id) as a partition, and served by its endpoint."""
    instance = dg.DagsterInstance.from_config(str(d.home))
    try:
        instance.add_dynamic_partitions("model", list(models))
    finally:
        instance.dispose()
    store = open_store(store_path)
    for model, endpoint in models.items():
        store.remember_model(model, model, endpoint)


def backfill(d: Deployment, env: dict, partitions: list[str]) -> None:
    cp = subprocess.run([str(BIN / "dagster"), "job", "backfill", "-j", "benchmark", "--partitions",
                         ",".join(partitions), "--noprompt", "-w", str(REPO / "workspace.yaml")],
                        cwd=REPO, env={**env, **d.instance_env()}, capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stdout[-2000:] + cp.stderr[-2000:]


def runs_of(d: Deployment, **filters) -> list:
    instance = dg.DagsterInstance.from_config(str(d.home))
    try:
        return list(instance.get_runs(filters=dg.RunsFilter(**filters)))
    finally:
        instance.dispose()


def benchmark_runs(d: Deployment) -> list:
    return runs_of(d, job_name="benchmark")


def rows(store_path: str, sql: str) -> list[tuple] | None:
    try:
        return open_store(store_path).query(sql)[1]
    except Exception:  # a partition being swapped in as we read: asked again on the next poll
        return None


def assert_nothing_left(d: Deployment, env: dict) -> None:
    cp = kbench_deploy("stop", env)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "nothing of the deployment is left" in cp.stdout, cp.stdout
    # looked for again here, independently of what stop says of itself
    own = []
    for p in psutil.process_iter(["cmdline", "name"]):
        try:
            cmd = " ".join(p.info["cmdline"] or [])
            home = p.environ().get("DAGSTER_HOME")
            cwd = p.cwd()
        except psutil.Error:
            continue
        if str(d.root) in cmd or home == str(d.home) or cwd.startswith(str(d.root)):
            own.append(f"{p.pid} {p.info['name']} {cmd[:100]}")
    assert own == [], own
    client = engine.client()
    assert client.containers.list(all=True, filters={"label": f"{LABEL}={d.label}"}) == []
    assert containers.orphan_sandboxes(client) == []
    again = kbench_deploy("stop", env)
    assert again.returncode == 0 and "was not running" in again.stdout, again.stdout + again.stderr


def test_backfill_runs_in_containers_on_postgres_and_stop_leaves_nothing(tmp_path, monkeypatch):
    with ScriptedServer(persona="oracle", port=0) as a, ScriptedServer(persona="null", port=0) as b, \
            deployment(tmp_path, {"a": a.url, "b": b.url}, monkeypatch) as (d, env):
        pids = {name: d.state()[name]["pid"] for name in ("daemon", "webserver")}
        cp = kbench_deploy("start", env)
        assert cp.returncode == 0 and "already runs" in cp.stdout, cp.stdout + cp.stderr
        assert {name: d.state()[name]["pid"] for name in pids} == pids  # a second start started nothing

        store = env["KBENCH_DB"]
        register(d, store, {"scripted-oracle": "a", "scripted-null": "b"})
        t0 = time.monotonic()
        backfill(d, env, [f"{cell}|{model}" for model in ("scripted-oracle", "scripted-null")
                          for cell in ("base.s1", "think.s1")])

        def landed():
            got = rows(store, "SELECT model, condition, task, outcome, isolation FROM attempts ORDER BY ALL")
            graded = rows(store, "SELECT count(*) FROM gradings")
            return got if got and len(got) == 8 and graded and graded[0][0] == 8 else None

        got = wait_for(landed, 420, "8 attempt rows and 8 gradings from the backfill")
        rows_s = time.monotonic() - t0
        runs = wait_for(lambda: (r := benchmark_runs(d)) and all(x.is_finished for x in r) and len(r) == 4 and r,
                        120, "the 4 runs of the backfill to end")
        print(f"backfill of 2 models x 2 cells: every row after {rows_s:.1f}s, every run ended after "
              f"{time.monotonic() - t0:.1f}s")

        assert {r.status for r in runs} == {dg.DagsterRunStatus.SUCCESS}
        by_model: dict[str, list[str]] = {}
        for model, _cond, _task, outcome, _isolation in got:
            by_model.setdefault(model, []).append(outcome)
        assert by_model["scripted-oracle"] == ["pass"] * 4
        assert "pass" not in by_model["scripted-null"] and len(by_model["scripted-null"]) == 4
        assert {isolation for *_, isolation in got} == {"docker"}  # the sessions too ran in containers

        # every run in its own container of the code image, started by the deployment's launcher
        client = engine.client()
        image = d.state()["image"]
        for run in runs:
            container = client.containers.get(run.tags["docker/container_id"])
            assert container.labels[LABEL] == d.label and container.labels["dagster/run_id"] == run.run_id
            assert image in container.image.tags and container.attrs["State"]["ExitCode"] == 0

        # Dagster's storage is PostgreSQL: the instance says so, and the runs are rows there
        instance = dg.DagsterInstance.from_config(str(d.home))
        try:
            assert type(instance.run_storage).__name__ == "PostgresRunStorage"
            assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        finally:
            instance.dispose()
        con = d.cluster.connect(d.state()["pg_port"])
        try:
            with con.cursor() as cur:
                cur.execute("SELECT run_id FROM runs WHERE pipeline_name = 'benchmark'")
                assert {r[0] for r in cur.fetchall()} == {r.run_id for r in runs}
        finally:
            con.close()

        # the results automation follows in run containers too, and its board lands on the host
        board = Path(store).parent / "board" / "index.html"
        automation = wait_for(lambda: (r := runs_of(d, tags={"dagster/auto_materialize": "true"}))
                              and all(x.is_finished for x in r) and board.exists() and r,
                              240, "the results automation's runs and the board")
        assert {r.status for r in automation} == {dg.DagsterRunStatus.SUCCESS}

        assert_nothing_left(d, env)


def test_killed_run_container_fails_the_run_and_scores_no_model_failure(tmp_path, monkeypatch):
    # replies slow enough that the run is surely mid-session when its container is killed
    with ScriptedServer(persona="oracle", port=0, latency=2.0, model_id="slow-oracle") as slow, \
            deployment(tmp_path, {"slow": slow.url}, monkeypatch) as (d, env):
        store = env["KBENCH_DB"]
        register(d, store, {"slow-oracle": "slow"})
        backfill(d, env, ["base.s1|slow-oracle"])
        client = engine.client()

        def running_mid_session():
            runs = benchmark_runs(d)
            if not runs or slow.chat_requests < 1 or "docker/container_id" not in runs[0].tags:
                return None
            container = client.containers.get(runs[0].tags["docker/container_id"])
            return (runs[0], container) if container.status == "running" else None

        run, container = wait_for(running_mid_session, 300, "the run's container to be mid-session")
        container.kill()
        killed_at = time.monotonic()

        def failed():
            r = [x for x in benchmark_runs(d) if x.run_id == run.run_id][0]
            return r if r.is_finished else None

        assert wait_for(failed, 120, "the killed run to end").status == dg.DagsterRunStatus.FAILURE
        cut = rows(store, "SELECT task, outcome FROM attempts WHERE model = 'slow-oracle'") or []
        print(f"the killed run was failed {time.monotonic() - killed_at:.0f}s after the kill; its rows: {cut}")
        assert not [r for r in cut if r[1] in MODEL_FAILURES], cut
        assert {outcome for _task, outcome in cut} <= {"pass", "infra"}

        backfill(d, env, ["base.s1|slow-oracle"])

        def rerun_landed():
            runs = [r for r in benchmark_runs(d) if r.run_id != run.run_id]
            got = rows(store, "SELECT task, outcome FROM attempts WHERE model = 'slow-oracle' ORDER BY task")
            graded = rows(store, "SELECT task, outcome FROM gradings ORDER BY task")
            done = runs and runs[0].is_finished
            return (runs[0], got, graded) if done and got and len(got) == 2 and graded and len(graded) == 2 else None

        rerun, got, graded = wait_for(rerun_landed, 300, "the rerun's 2 attempt rows and 2 gradings")
        assert rerun.status == dg.DagsterRunStatus.SUCCESS
        assert got == [("counterrors", "pass"), ("fizz", "pass")] and graded == got

        assert_nothing_left(d, env)
