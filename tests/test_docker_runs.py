"""The container sandbox behind the one run loop: the same outcomes and records as bwrap, hostile agents contained,
and a container killed from outside recorded as infra (make test-integration; marker docker)."""

import io
import json
import shutil
import tarfile
import threading
import time

import psutil
import pytest
from conftest import REPO, needs_bwrap
from test_agent_runs import HOST_TRAPS, PI_SHAPES, run

from sandbox.containers import engine, image
from sandbox.containers.process import LABEL, ContainerLost
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS
from sandbox.isolation.session import run_session
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.canary import CANARY

pytestmark = pytest.mark.docker
DOCKER = IsolationConfig(mode="docker")


def _records(run_dir):
    return {p.parent.parent.name: json.loads(p.read_text()) for p in run_dir.glob("base/*/s1/result.json")}


@needs_bwrap
def test_the_whole_suite_gives_the_same_outcomes_and_records_as_under_bwrap(tmp_path):
    with ScriptedServer(persona="oracle", port=0) as srv:
        _, in_bwrap = run(srv.url, srv.model_id, "builtin", None, tmp_path / "b", run_id="b",
                          isolation=IsolationConfig(mode="bwrap"))
        _, in_docker = run(srv.url, srv.model_id, "builtin", None, tmp_path / "d", run_id="d", isolation=DOCKER)
    bwrap, docker = _records(in_bwrap), _records(in_docker)
    assert len(docker) == 65
    assert {t: r["outcome"] for t, r in docker.items()} == {t: r["outcome"] for t, r in bwrap.items()}
    assert {r["outcome"] for r in docker.values()} == {"pass", "skipped"}
    assert {t: sorted(r) for t, r in docker.items()} == {t: sorted(r) for t, r in bwrap.items()}
    manifest = json.loads((in_docker / "manifest.json").read_text())
    assert manifest["settings"]["isolation"] == "docker"


def test_pi_drives_every_shape_of_task_in_a_container(tmp_path):
    with ScriptedServer(persona="oracle", port=0) as srv:
        results, _ = run(srv.url, srv.model_id, "pi", PI_SHAPES, tmp_path, isolation=DOCKER)
    assert {r["task"]: r["outcome"] for r in results} == {t: "pass" for t in PI_SHAPES.split(",")}
    assert not any(r["infra"] or r["tool_format_errors"] for r in results)


@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_a_hostile_agent_is_contained_in_a_container(agent, tmp_path):
    with ScriptedServer(persona="hostile", port=0) as srv:
        results, run_dir = run(srv.url, srv.model_id, agent, "fizz", tmp_path, isolation=DOCKER)
    [r] = results
    assert r["outcome"] == "nofile" and not r["infra"]
    assert r["watchdog_kills"] > 0 or r["stop_reason"] == "killed"
    assert r["outside_writes"] >= 1
    for trap in HOST_TRAPS:
        assert not trap.exists(), f"{trap} was written on the host"
    assert not [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "3600"]]
    assert engine.client().containers.list(all=True, filters={"label": LABEL}) == []


def _kill_the_first_sandbox_container(stop: threading.Event, killed: list, how: str = "kill") -> None:
    api = engine.client().api
    while not stop.is_set() and not killed:
        for c in api.containers(filters={"label": LABEL}):
            try:
                if how == "stop":  # SIGTERM, passed on to the command by the container's init
                    api.stop(c["Id"], timeout=10)
                else:
                    api.kill(c["Id"])
                killed.append(c["Id"])
                return
            except Exception:  # it ended by itself first: the next one
                continue
        time.sleep(0.05)


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_a_session_container_killed_from_outside_is_lost_not_scored(work, how):
    killer = threading.Thread(target=_kill_the_first_sandbox_container, args=(threading.Event(), [], how))
    killer.start()
    with pytest.raises(ContainerLost, match="killed from outside"):
        run_session(["bash", "-c", "sleep 30"], work, limits=AGENT_LIMITS.with_(timeout_s=60), cfg=DOCKER)
    killer.join()


def test_a_run_whose_sandbox_container_is_killed_records_infra(tmp_path):
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_the_first_sandbox_container, args=(stop, killed))
    # the hostile persona holds memory in a long command: a container alive long enough to be killed from outside
    with ScriptedServer(persona="hostile", port=0) as srv:
        killer.start()
        try:
            results, _ = run(srv.url, srv.model_id, "builtin", "fizz", tmp_path, isolation=DOCKER)
        finally:
            stop.set()
            killer.join()
    [r] = results
    assert killed
    assert r["outcome"] == "infra" and r["infra"], r
    assert "killed from outside" in r["infra_error"]


def test_no_engine_names_the_socket_and_the_make_target(monkeypatch):
    monkeypatch.setenv("KBENCH_DOCKER_HOST", "unix:///nonexistent/kbench.sock")
    with pytest.raises(engine.EngineUnavailable, match="/nonexistent/kbench.sock.*make docker-engine"):
        IsolationConfig(mode="docker").preflight()


def _image_with_marker(tag: str) -> str:
    """A task's own image: the base image and one file more, built from a COPY-only Dockerfile (no network)."""
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, data in (("Dockerfile", f"FROM {image.image_name()}\nCOPY marker /etc/kbench-task-image\n"),
                           ("marker", "made for this task\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data.encode()))
    context.seek(0)
    engine.client().images.build(fileobj=context, custom_context=True, tag=tag, rm=True)
    return tag


def _suite_with_image(tmp_path, image_name: str):
    root = tmp_path / "suite"
    shutil.copytree(REPO / "task_defs" / "suites" / "kbench" / "fizz", root / "fizz")
    toml = root / "fizz" / "task.toml"
    toml.write_text(toml.read_text() + f'image = "{image_name}"\n')
    # set -e: outside the task's image the marker is missing and the setup fails, so a pass proves where it ran
    (root / "fizz" / "setup.sh").write_text(f"# {CANARY}\nset -e\ntest -f /etc/kbench-task-image\n")
    return load_suite(str(root))


def test_a_task_that_names_an_image_runs_in_it_whatever_the_runs_isolation(tmp_path):
    tag = _image_with_marker("kbench-test-task:1")
    try:
        for name, expected in ((tag, "pass"), ("kbench-test-task:absent", "skipped")):
            suite = _suite_with_image(tmp_path / expected, name)
            results = []
            with ScriptedServer(persona="oracle", port=0) as srv:
                spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=suite.tasks,
                               url=srv.url, agent="builtin", runs_root=tmp_path / expected / "runs",
                               work_root=tmp_path / expected / "work", timeout_s=120,
                               isolation=IsolationConfig(mode="bwrap"))
                Scheduler(spec, suite, on_result=results.append).run()
            [r] = results
            assert r["outcome"] == expected, r
            if expected == "skipped":
                assert "kbench-test-task:absent" in r["detail"] and "make docker-image" in r["detail"]
    finally:
        engine.client().images.remove(tag, force=True)
