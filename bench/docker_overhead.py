"""What the container sandbox costs against bwrap (target: <= 0.5 s more per task), measured in one run.

Two figures, alternating the backends so both see the same machine load:
- one session of an empty command (`true`): the container's create, start, wait and remove;
- one task end to end (the builtin agent with the scripted oracle on trivial tasks, one worker): the agent's tool
  sessions and the hidden test, each a container, plus the run's own records.
Needs a Docker engine and the base image: `make docker-image` (or run under `python -m sandbox.containers.engine
run -- ...`).
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.workdirs import default_work_root
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.loader import select

TRIVIAL = "fizz,clamp,countlines,wordcount,hellosh,counterrors"
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
SESSIONS = 20


def session_wall(cfg: IsolationConfig, wd: Path) -> float:
    times = []
    for _ in range(SESSIONS):
        t = time.perf_counter()
        run_session(["true"], wd, limits=TEST_LIMITS, cfg=cfg)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def task_wall(cfg: IsolationConfig, root: Path, srv: ScriptedServer, n: int) -> float:
    suite = load_suite("kbench")
    tasks = select(suite, TRIVIAL)
    spec = RunSpec(run_id=f"r{n}-{cfg.mode}", model=srv.model_id, conds=select_conditions("base"), tasks=tasks,
                   url=srv.url, agent="builtin", runs_root=root / "runs", work_root=root / "work", workers=1,
                   timeout_s=120, isolation=cfg)
    results = []
    t = time.perf_counter()
    Scheduler(spec, suite, on_result=results.append).run()
    wall = time.perf_counter() - t
    assert all(r["outcome"] == "pass" for r in results), [(cfg.mode, r["task"], r["detail"][:300]) for r in results]
    return wall / len(tasks)


def main() -> None:
    base = default_work_root()
    base.mkdir(parents=True, exist_ok=True)
    modes = [IsolationConfig(mode="bwrap"), IsolationConfig(mode="docker")]
    modes[1].preflight()
    per_session = {c.mode: [] for c in modes}
    per_task = {c.mode: [] for c in modes}
    with tempfile.TemporaryDirectory(prefix="bench-docker-", dir=base) as d, \
            ScriptedServer(persona="oracle", port=0) as srv:
        root = Path(d)
        wd = root / "w"
        wd.mkdir()
        for n in range(ROUNDS):
            for cfg in modes:
                per_session[cfg.mode].append(session_wall(cfg, wd))
                per_task[cfg.mode].append(task_wall(cfg, root, srv, n))
    s_b, s_d = statistics.median(per_session["bwrap"]), statistics.median(per_session["docker"])
    t_b, t_d = statistics.median(per_task["bwrap"]), statistics.median(per_task["docker"])
    print(f"empty session: bwrap {s_b * 1000:6.0f} ms, docker {s_d * 1000:6.0f} ms "
          f"(+{(s_d - s_b) * 1000:.0f} ms, x{s_d / s_b:.1f}); median of {ROUNDS} rounds of {SESSIONS}")
    verdict = "OK" if t_d - t_b <= 0.5 else "OVER TARGET"
    print(f"trivial task ({len(TRIVIAL.split(','))} tasks, builtin + oracle, 1 worker): bwrap {t_b:.2f} s, "
          f"docker {t_d:.2f} s per task: +{t_d - t_b:.2f} s per task (target <= 0.5 s): {verdict}")


if __name__ == "__main__":
    main()
