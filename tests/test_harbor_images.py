"""Harbor tasks whose environment is their own image, built from the task's Dockerfile on the docker backend
(make test-integration; marker docker): `kbench import-tasks --build` builds each one once (a local stand-in for
ubuntu, debian and python, a RUN step reaching Debian's mirror or PyPI as the machine does), names a failed build's
step and output, and reuses a built one; the image's ENV, its packages, its files outside WORKDIR and what the build
left in WORKDIR (a binary file byte for byte) are the task's environment for the reference, the agent and the
verifier alike; a task whose build failed is skipped with that reason, never scored."""

import shutil
import time
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from sandbox.containers import engine, task_images
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.servers.scripted import ScriptedServer
from sandbox.tasks.validation import validate_tasks
from task_defs import load_suite

pytestmark = pytest.mark.docker
DATA = Path(__file__).parent / "data"
IMAGES = DATA / "harbor_images"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Our image tasks and the python one beside them, with caches of their own for the module (a failed build's
    record, the WORKDIR snapshots, the task folders)."""
    root = tmp_path_factory.mktemp("harbor")
    shutil.copytree(IMAGES, root / "src")
    shutil.copytree(DATA / "harbor_tasks" / "pinned-http-client", root / "src" / "pinned-http-client")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KBENCH_FIXTURE_CACHE", str(root / "fixtures"))
        mp.setenv(task_images.CACHE_ENV, str(root / "env-images"))
        yield root / "src"


def test_import_tasks_builds_each_image_names_a_failed_step_and_reuses_what_it_built(built, capsys):
    assert main(["import-tasks", str(built), "--build", "--details"]) == 0
    said = capsys.readouterr()
    assert "image_inventory                  runnable in its own image, seen at /srv/shop" in said.out
    assert "pinned_http_client               runnable in its own image, seen at /app" in said.out
    assert "broken_build                     not runnable here: its image's build failed" in said.out
    assert "build failed: broken_build at Step 4/4 : RUN" in said.err
    assert "widget.c:3: error: expected ';' before 'return'" in said.err  # the step's own output, not only its exit
    assert "2 runnable here, 1 not" in said.err

    started = time.monotonic()
    assert main(["import-tasks", str(built), "--build"]) == 0
    assert time.monotonic() - started < 60  # the built images are reused: only the failed one is tried again
    assert "     2  runnable here\n     1  its image's build failed\n" in capsys.readouterr().out


def test_the_images_environment_is_the_tasks_for_the_reference_and_the_verifier(built, tmp_path):
    suite = load_suite(built)
    results = {v.task_id: v for v in validate_tasks(list(suite.tasks), tmp_path / "v", workers=2)}
    for task in ("image_inventory", "pinned_http_client"):
        assert results[task].status == "ok", results[task]
        assert results[task].untouched.outcome == "wrong" and results[task].reference.outcome == "pass"
    broken = results["broken_build"]
    assert broken.status == "skipped" and "the build failed at Step 4/4" in broken.reason, broken.reason


def test_the_run_loop_gives_an_agent_the_image_and_grades_in_a_fresh_container_of_it(built, tmp_path):
    suite = load_suite(built)
    for persona, want in (("oracle", "pass"), ("null", "wrong")):
        got = []
        with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
            spec = RunSpec(run_id=persona, model=srv.model_id, conds=select_conditions("base"),
                           tasks=list(suite.tasks), url=srv.url, agent="builtin", runs_root=tmp_path / "runs",
                           work_root=tmp_path / "work", workers=2, timeout_s=120, keep_work=True)
            Scheduler(spec, suite, on_result=got.append).run()
        outcomes = {r["task"]: r["outcome"] for r in got}
        assert outcomes == {"image_inventory": want, "pinned_http_client": want, "broken_build": "skipped"}, got
        assert not any(r["infra"] for r in got)
    # the work folder started as the image left WORKDIR: the build's own file and the binary one are in it
    [work] = [p for p in (tmp_path / "work").rglob("count.txt")][:1]
    assert work.read_text().strip() == "3"


def test_a_changed_build_context_makes_a_new_image_and_an_unchanged_one_the_same(tmp_path):
    folder = shutil.copytree(IMAGES / "image-inventory", tmp_path / "image-inventory")
    first = task_images.recipe(folder / "environment", "image-inventory")
    assert task_images.recipe(folder / "environment", "image-inventory").name == first.name
    (folder / "environment" / "prices.json").write_text('{"A1": 3, "B2": 4, "C3": 10}\n')
    assert task_images.recipe(folder / "environment", "image-inventory").name != first.name
    assert any(s.startswith("ubuntu:24.04 -> kbench-env-base:") for s in first.stand_ins)
    assert engine.client(timeout=10)  # the engine these tests used answers still


def test_a_multi_step_task_runs_step_by_step_on_the_docker_backend(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "fixtures"))
    suite = load_suite(DATA / "harbor_steps")
    for persona, want in (("oracle", "pass"), ("null", "wrong")):
        got = []
        with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
            spec = RunSpec(run_id=persona, model=srv.model_id, conds=select_conditions("base"),
                           tasks=list(suite.tasks), url=srv.url, agent="pi", runs_root=tmp_path / "runs",
                           work_root=tmp_path / "work", workers=1, timeout_s=120,
                           isolation=IsolationConfig(mode="docker"))
            Scheduler(spec, suite, on_result=got.append).run()
        [r] = got
        assert r["outcome"] == want and not r["infra"], r
        assert r["detail"].startswith("steps: count pass (reward 1), by-kind pass" if want == "pass" else
                                      "steps: count wrong (reward 0), by-kind not run"), r


def test_a_build_that_fetches_nothing_cannot_reach_the_hosts_own_services(tmp_path):
    """The host's network is lent to a build only where a step fetches: a build that fetches nothing finds nothing
    listening on the host's loopback (here, a server of the test's own)."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    context = tmp_path / "environment"
    context.mkdir()
    (context / "Dockerfile").write_text(
        "FROM debian:bookworm-slim\nENV PROBE=1\nWORKDIR /app\n"
        "RUN python3 -c \"import socket; s = socket.socket(); s.settimeout(3); "
        f"open('/app/reach.txt', 'w').write(str(s.connect_ex(('127.0.0.1', {port}))))\"\n")
    rec = task_images.recipe(context, "probe")
    assert not rec.network
    client = engine.client()
    try:
        assert task_images.build(rec, client, timeout_s=120, log=lambda _m: None) == "built"
        reach = (task_images.workdir_snapshot(rec.name, "/app") / "reach.txt").read_text()
        assert reach != "0", "the build reached the host's loopback"
    finally:
        listener.close()
        client.images.remove(rec.name, force=True)


def test_an_images_hooks_and_path_into_the_work_folder_never_reach_the_judge(tmp_path, monkeypatch):
    """An image whose ENV names a file of the work folder for bash (BASH_ENV, ENV), the loader (LD_PRELOAD) or
    Python (PYTHONSTARTUP), and one whose PATH puts a folder of the work folder first: the work folder's forged hook
    and forged `cat` never run in the judge's session, so the untouched folder is wrong. The reference passes: the
    image's own tool folder on its PATH (/opt) reaches the reference's session and the judge's commands alike."""
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "fixtures"))
    monkeypatch.setenv(task_images.CACHE_ENV, str(tmp_path / "env-images"))
    source = DATA / "harbor_hostile"
    assert main(["import-tasks", str(source), "--build"]) == 0
    results = validate_tasks(list(load_suite(source).tasks), tmp_path / "v", workers=1)
    assert sorted(v.task_id for v in results) == ["env_hooks", "path_plant"]
    for v in results:
        assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v


def test_a_tasks_cpus_are_its_containers_share(tmp_path):
    """[environment] cpus is the container's CPU quota (Docker's --cpus); memory_mb and storage_mb are the
    watchdogs' limits on either sandbox (tests/test_harbor_import.py)."""
    from sandbox.containers.process import ContainerProcess
    from sandbox.isolation.limits import AGENT_LIMITS

    home, tmp = tmp_path / "home", tmp_path / "tmp"
    for d in (home, tmp):
        d.mkdir()
    proc = ContainerProcess(["sleep", "30"], tmp_path, home, tmp, uid=65534, limits=AGENT_LIMITS,
                            env={"HOME": "/home/kbench", "PATH": "/usr/bin:/bin"}, ro_binds=[], rw_binds=[],
                            work_mounts=(), network=False, label="cpus-test", cpus=0.5)
    try:
        assert proc.client.api.inspect_container(proc.container)["HostConfig"]["NanoCpus"] == 500_000_000
    finally:
        proc.kill()
        proc.remove()


def test_the_selftests_image_family_is_contained_under_both_agents(tmp_path):
    """`kbench selftest`'s harbor_image family, which needs an engine: the forgeries an image's PATH, BASH_ENV and
    PYTHONSTARTUP would hand the judge are planted under pi and builtin, and the attempt is still graded wrong."""
    from kbench_dagster.selftest import harbor_image
    from kbench_dagster.selftest.cli import render_table
    from kbench_dagster.selftest.runner import AGENTS, run_selftest

    out = run_selftest([harbor_image.FAMILY], list(AGENTS), tmp_path / "work", tmp_path / "runs",
                       suite=load_suite("kbench"))
    assert [(r.agent, r.verdict.contained) for r in out.rows] == [("pi", True), ("builtin", True)], \
        render_table(out.rows)
    assert out.host.clean, out.host


@pytest.mark.parametrize("inside, home", [("/tmp", "/home/kbench"), ("/home", "/root")])
def test_an_image_task_working_in_tmp_or_home_itself_is_seen_there(tmp_path, monkeypatch, inside, home):
    """WORKDIR /tmp or /home on the docker backend: what the build left there is the work folder's start, the
    session's /tmp is the work folder (or HOME is /root), and the reference passes while the untouched folder
    fails. The work root is outside /tmp, as it must be for a task that works in /tmp."""
    import tempfile

    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "fixtures"))
    monkeypatch.setenv(task_images.CACHE_ENV, str(tmp_path / "env-images"))
    folder = tmp_path / "src" / "in-place"
    for sub in ("environment", "tests", "solution"):
        (folder / sub).mkdir(parents=True)
    (folder / "environment" / "Dockerfile").write_text(
        f"FROM debian:bookworm-slim\nENV PATH=/opt/inplace/bin:$PATH\nWORKDIR {inside}\nRUN echo seed > seed.txt\n")
    (folder / "instruction.md").write_text(f"Append -done to the word in {inside}/seed.txt, into {inside}/out.txt.\n")
    (folder / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60.0\n')
    (folder / "solution" / "solve.sh").write_text(
        f'#!/bin/bash\necho "$(cat {inside}/seed.txt)-done" > {inside}/out.txt\necho "$HOME $TMPDIR" > where.txt\n')
    (folder / "tests" / "test.sh").write_text(
        f'#!/bin/bash\n[ "$(cat {inside}/out.txt)" = seed-done ] && echo 1 > /logs/verifier/reward.txt '
        "|| echo 0 > /logs/verifier/reward.txt\n")
    assert main(["import-tasks", str(folder.parent), "--build"]) == 0
    outside = Path(tempfile.mkdtemp(prefix="kbench-work-", dir="/var/tmp"))
    outside.chmod(0o755)
    try:
        [v] = validate_tasks(list(load_suite(folder.parent).tasks), outside, workers=1, keep_work=True)
        assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v
        [where] = [p.read_text().split() for p in outside.rglob("where.txt")]
        assert where == [home, "/tmp"]
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_an_images_entrypoint_prepares_each_session_as_root_and_the_session_runs_as_its_own_uid(tmp_path,
                                                                                                 monkeypatch):
    """An ENTRYPOINT that names a host in /etc/hosts and serves a root-only file on port 80 runs first in every
    session, as root, as Harbor runs it: the reference reaches the service from a session that is not root, the
    verifier reaches it too, the untouched folder fails; the scripted oracle passes through the run loop under pi
    and builtin, null does not."""
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "fixtures"))
    monkeypatch.setenv(task_images.CACHE_ENV, str(tmp_path / "env-images"))
    source = DATA / "harbor_entrypoint"
    assert main(["import-tasks", str(source), "--build"]) == 0
    suite = load_suite(source)
    [v] = validate_tasks(list(suite.tasks), tmp_path / "v", workers=1)
    assert v.status == "ok" and v.untouched.outcome == "wrong" and v.reference.outcome == "pass", v
    for agent in ("pi", "builtin"):
        for persona, want in (("oracle", "pass"), ("null", "wrong")):
            got = []
            with ScriptedServer(persona=persona, suite=suite, port=0) as srv:
                spec = RunSpec(run_id=f"{agent}-{persona}", model=srv.model_id, conds=select_conditions("base"),
                               tasks=list(suite.tasks), url=srv.url, agent=agent, runs_root=tmp_path / "runs",
                               work_root=tmp_path / "work", workers=1, timeout_s=120)
                Scheduler(spec, suite, on_result=got.append).run()
            [r] = got
            assert r["outcome"] == want and not r["infra"], (agent, r)
