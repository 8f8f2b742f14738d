"""The Dagster path against the plain `kbench run` path: same partition, same tasks (target <= 1.3x wall).

Dagster: `dagster asset materialize`-equivalent in-process (dg.materialize of agent_runs + gradings for one
model x cell). Plain: the `kbench run` command in a subprocess (process start included, as a user runs it).
Both against one scripted oracle server, builtin agent.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import dagster as dg

from assets.runs import agent_runs, gradings
from assets.suites import task_suites
from kbench_dagster.parquet_store import open_store
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings, SuiteSource
from sandbox.servers.scripted import ScriptedServer

TASKS = sys.argv[1] if len(sys.argv) > 1 else "programming,repair"
REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    with tempfile.TemporaryDirectory() as d, ScriptedServer(persona="oracle", port=0) as srv:
        tmp = Path(d)
        t = time.perf_counter()
        cp = subprocess.run([str(Path(sys.executable).parent / "kbench"), "run", "plain", "--model", srv.model_id,
                             "--url", srv.url, "--agent", "builtin", "--conds", "base", "--tasks", TASKS,
                             "--runs", str(tmp / "runs-cli"), "--db", str(tmp / "cli.duckdb")],
                            capture_output=True, text=True, cwd=REPO)
        plain = time.perf_counter() - t
        assert cp.returncode == 0, cp.stderr[-2000:]
        res = {"suite_source": SuiteSource(), "endpoints": ModelEndpoints(urls={"scripted": srv.url}),
               "agent": AgentSettings(agent="builtin", tasks=TASKS, runs_root=str(tmp / "runs-dg")),
               "sandbox": SandboxSettings(), "results_db": ResultsDB(path=str(tmp / "dg.duckdb"))}
        instance = dg.DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("model", [srv.model_id])
        open_store(tmp / "dg.duckdb").remember_model(srv.model_id, srv.model_id, "scripted")
        t = time.perf_counter()
        out = dg.materialize([task_suites, agent_runs, gradings], selection=[agent_runs, gradings], resources=res,
                             instance=instance,
                             partition_key=dg.MultiPartitionKey({"model": srv.model_id, "cell": "base.s1"}))
        dagster = time.perf_counter() - t
        assert out.success
        n = out.asset_materializations_for_node("agent_runs")[0].metadata["rows"].value
    ratio = dagster / plain
    print(f"{n} tasks ({TASKS}), builtin, oracle: plain `kbench run` {plain:.1f}s, Dagster agent_runs+gradings "
          f"{dagster:.1f}s: {ratio:.2f}x (target <= 1.3x: {'OK' if ratio <= 1.3 else 'OVER TARGET'})")


if __name__ == "__main__":
    main()
