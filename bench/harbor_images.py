"""Harbor tasks in their own images, measured in one run (issue 36's figures): the build of a set of N tasks (default
50) cold (none of their images in the engine) and cached (all of them), and the per-task overhead on the docker
backend beyond the agent and the verifier, for those image tasks and for the same tasks laid on the host's system.

Each generated task (our own, written here) needs its image only for an ENV of the system's PATH: the build steps
fetch nothing, so the figure is the build's own cost, not the mirror's. Overhead per task is what the run loop
records besides the agent and the hidden test: setup (the work folder laid, the image's WORKDIR copied in), the
judge's own time around the test, and the record (the wait for a grader, which overlaps the next attempt, apart).
Needs a Docker engine and the base image (make docker-image).

    .venv/bin/python bench/harbor_images.py [N]
"""

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from kbench_dagster.commands import task_envs
from sandbox.containers import engine, task_images
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.importers.harbor import load_harbor

N = int(sys.argv[1]) if len(sys.argv) > 1 else 50
# what the loop spends on an attempt besides the agent and the hidden test; the wait for the grader is queueing (the
# next attempt's agent runs meanwhile), reported apart
OVERHEAD = ("setup_s", "judge_overhead_s", "record_s")
PARTS = (*OVERHEAD, "grade_wait_s")


def make_tasks(root: Path, n: int, with_env: bool) -> Path:
    for i in range(n):
        t = root / f"bench-{i:03d}"
        for sub in ("environment", "tests", "solution"):
            (t / sub).mkdir(parents=True)
        env = f"ENV PATH=/opt/bench-{i}/bin:$PATH\n" if with_env else ""  # the system's own variable: an image
        (t / "environment" / "Dockerfile").write_text(
            f"FROM ubuntu:24.04\n{env}WORKDIR /app\nRUN echo {i} > seed.txt\n")
        (t / "instruction.md").write_text("Write twice the number in /app/seed.txt to /app/answer.txt.\n")
        (t / "task.toml").write_text('version = "1.0"\n\n[agent]\ntimeout_sec = 60.0\n')
        (t / "tests" / "test.sh").write_text(
            "#!/bin/bash\n[ \"$(cat /app/answer.txt)\" = \"$(( $(cat /app/seed.txt) * 2 ))\" ] "
            "&& echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n")
        (t / "solution" / "solve.sh").write_text(
            "#!/bin/bash\necho $(( $(cat /app/seed.txt) * 2 )) > /app/answer.txt\n")
    return root


def build_wall(src: Path) -> float:
    _name, fixtures, _ = load_harbor(src)
    t = time.perf_counter()
    states = task_envs.states(fixtures, build=True)
    wall = time.perf_counter() - t
    assert all(s.state == task_envs.BUILT for s in states.values()), states
    return wall


def overhead(src: Path, tmp: Path, isolation: IsolationConfig) -> tuple[float, dict]:
    suite = load_suite(src)
    got: list[dict] = []
    with ScriptedServer(persona="oracle", suite=suite, port=0) as srv:
        spec = RunSpec(run_id="bench", model=srv.model_id, conds=select_conditions("base"), tasks=list(suite.tasks),
                       url=srv.url, agent="builtin", runs_root=tmp / "runs", work_root=tmp / "work", workers=1,
                       timeout_s=120, isolation=isolation)
        Scheduler(spec, suite, on_result=got.append).run()
    assert {r["outcome"] for r in got} == {"pass"}, [(r["task"], r["outcome"], r.get("detail")) for r in got]
    per_task = [sum(r["stages"].get(k, 0.0) for k in OVERHEAD) for r in got]
    parts = {k: round(statistics.median(r["stages"].get(k, 0.0) for r in got), 3) for k in PARTS}
    return statistics.median(per_task), parts


def main() -> None:
    client = engine.client()
    with tempfile.TemporaryDirectory(prefix="kbench-bench-harbor-") as tmp:
        tmp = Path(tmp)
        images = make_tasks(tmp / "images", N, with_env=True)
        laid = make_tasks(tmp / "laid", N, with_env=False)
        _n, fixtures, _ = load_harbor(images)
        for fx, _ in fixtures:  # cold: none of this set's images in the engine (the stand-ins stay, built once)
            if task_images.present(client, fx.image):
                client.images.remove(fx.image, force=True)
        task_images.ensure_stand_ins(client)
        cold = build_wall(images)
        cached = build_wall(images)
        docker_over, docker_parts = overhead(images, tmp / "d", IsolationConfig())
        bwrap_over, bwrap_parts = overhead(laid, tmp / "b", IsolationConfig(mode="bwrap"))
        for fx, _ in fixtures:
            client.images.remove(fx.image, force=True)
    print(json.dumps({"tasks": N, "build_cold_s": round(cold, 1), "build_cold_per_task_s": round(cold / N, 2),
                      "build_cached_s": round(cached, 2),
                      "overhead_per_task_image_docker_s": round(docker_over, 3), "image_docker_parts": docker_parts,
                      "overhead_per_task_laid_bwrap_s": round(bwrap_over, 3), "laid_bwrap_parts": bwrap_parts},
                     indent=1))


if __name__ == "__main__":
    main()
