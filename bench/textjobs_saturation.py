"""Text jobs against a busy server: a scripted server with a fixed 1 s latency and 4 slots, `--parallel 4`.

Ideal: the server always busy, i.e. requests x 1 s / 4 slots. Achieved throughput as a share of ideal (target
>= 0.95). The oracle persona; the first K items of each of the five jobs (default 16: 80 requests, 20 rounds).

    .venv/bin/python bench/textjobs_saturation.py [K]
"""

import sys
import tempfile
import time
from pathlib import Path

from sandbox.chatwork.textjobs import TextJobs
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import API_AGENT, RunSpec
from sandbox.isolation.workdirs import default_work_root
from sandbox.servers.scripted import ScriptedServer

LATENCY, SLOTS, PARALLEL = 1.0, 4, 4


def main() -> None:
    per_job = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    kind = TextJobs()
    units = kind.select(limit=per_job)
    with (tempfile.TemporaryDirectory() as d,
          ScriptedServer(persona="oracle", suite="textjobs", port=0, latency=LATENCY, slots=SLOTS) as srv):
        spec = RunSpec(run_id="textjobs-saturation", model=srv.model_id, conds=select_conditions("base"),
                       tasks=units, url=srv.url, agent=API_AGENT, runs_root=Path(d) / "runs",
                       work_root=default_work_root(), workers=PARALLEL)
        results = []
        t = time.perf_counter()
        Scheduler(spec, kind, on_result=results.append).run()
        wall = time.perf_counter() - t
        requests = srv.chat_requests
    ideal = requests * LATENCY / SLOTS
    bad = [r["task"] for r in results if r["outcome"] != "pass"]
    print(f"{len(results)} items, {requests} chat requests, latency {LATENCY:g}s, {SLOTS} slots, {PARALLEL} at "
          f"once: wall {wall:.1f}s, ideal {ideal:.1f}s, achieved {ideal / wall:.3f} of ideal "
          f"(target >= 0.95: {'OK' if ideal / wall >= 0.95 else 'BELOW TARGET'})"
          f"{'; not passed: ' + ','.join(bad) if bad else ''}")


if __name__ == "__main__":
    main()
