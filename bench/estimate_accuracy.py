"""How close `kbench estimate` comes to the wall time of the run it plans (target: within 30%).

A run of three tasks on a scripted server whose latency dominates each attempt fills the store; the estimate for
the same plan is then compared with a second run made right after it, on the same machine in the same minute. The
ratio moves with how busy the machine is, which is why it is measured here and not asserted in a test.
"""

import sys
import tempfile
import time
from pathlib import Path

from kbench_dagster.cli import main as kbench
from kbench_dagster.commands.estimate import estimate
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.loader import select

TASKS = "clamp,countlines,fizz"


def run(srv: ScriptedServer, root: Path, run_id: str) -> float:
    started = time.monotonic()
    rc = kbench(["run", run_id, "--model", srv.model_id, "--url", srv.url, "--agent", "builtin", "--tasks", TASKS,
                 "--conds", "base", "--runs", str(root / "runs"), "--work", str(root / "work"),
                 "--db", str(root / "r.duckdb")])
    if rc != 0:
        sys.exit(f"kbench run {run_id} exited {rc}")
    return time.monotonic() - started


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    ratios = []
    for n in range(rounds):
        with tempfile.TemporaryDirectory(prefix="kbench-estimate-") as tmp, \
                ScriptedServer(persona="oracle", port=0, latency=0.6) as srv:
            root = Path(tmp)
            run(srv, root, "before")
            planned = estimate(ResultsStore(root / "r.duckdb"), srv.model_id, srv.url,
                               select(load_suite("kbench"), TASKS), ["base"], 1)
            measured = run(srv, root, "after")
        guess = planned["wall_one_worker"][1]
        ratios.append(guess / measured)
        print(f"round {n + 1}: estimate {guess:.2f} s, the run {measured:.2f} s, ratio {guess / measured:.3f}")
    ratios.sort()
    median = ratios[len(ratios) // 2]
    print(f"median ratio over {rounds} rounds: {median:.3f} (target 0.70-1.30: "
          f"{'OK' if 0.7 <= median <= 1.3 else 'OUTSIDE'})")


if __name__ == "__main__":
    main()
