"""Harness overhead per task with the oracle persona, beyond the hidden test's own time.

Targets: median <= 0.25 s with builtin. pi's own start cost (node + pi start-up, per session) is reported
separately, since it is pi's, not the harness's.
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

from sandbox.conditions import select_conditions
from sandbox.runs import RunSpec, Runner
from sandbox.scripted import ScriptedServer
from sandbox.workdirs import default_work_root
from task_defs import load_suite
from task_defs.loader import select

TASKS = sys.argv[1] if len(sys.argv) > 1 else "programming"


def measure(agent: str, suite, tmp: Path) -> list[dict]:
    results = []
    with ScriptedServer(persona="oracle", port=0) as srv:
        spec = RunSpec(run_id=f"bench-{agent}", model=srv.model_id, conds=select_conditions("base"),
                       tasks=select(suite, TASKS), url=srv.url, agent=agent, runs_root=tmp / "runs",
                       work_root=default_work_root(), workers=1)
        Runner(spec, suite, on_result=results.append).run()
    return results


def main() -> None:
    suite = load_suite("kbench")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for agent in ("builtin", "pi"):
            t = time.perf_counter()
            rs = measure(agent, suite, tmp)
            wall = time.perf_counter() - t
            over = [r["wall_s"] - r["test_duration_s"] for r in rs]
            sessions = [r["duration_s"] for r in rs]
            assert all(r["outcome"] == "pass" for r in rs), [r["task"] for r in rs if r["outcome"] != "pass"]
            line = (f"{agent:7} {len(rs)} tasks ({TASKS}), 1 worker, wall {wall:.1f} s: per task beyond the hidden "
                    f"test median {statistics.median(over) * 1000:.0f} ms (p90 {sorted(over)[int(0.9 * len(over))] * 1000:.0f} ms)")
            if agent == "builtin":
                line += f"; target <= 250 ms: {'OK' if statistics.median(over) <= 0.25 else 'OVER TARGET'}"
            else:
                line += f"; of which the pi session (node + pi start-up + 2 replies) median {statistics.median(sessions) * 1000:.0f} ms"
            print(line, flush=True)


if __name__ == "__main__":
    main()
