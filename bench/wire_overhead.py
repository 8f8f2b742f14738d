"""What timing every model request on the wire costs (sandbox/agents/wire.py): target, no measurable overhead.

Two figures, both ratios from one run on this machine:

1. The measurement alone: a Stopwatch through a reply of 20 pieces, its record, and the `speed` event line written
   to an events file, per request, against the median time the harness spends on one request of the builtin agent
   with the scripted oracle (the cheapest request there is).
2. The same runs with and without it: the builtin agent on the programming tasks, rotating a run whose Stopwatch
   does nothing with two runs whose Stopwatch measures; the mean agent seconds per task of each, and the two
   measured runs against each other for the noise floor.

    .venv/bin/python bench/wire_overhead.py [--tasks programming] [--rounds 2]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sandbox.agents import builtin, wire
from sandbox.agents.record import EventLog
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.isolation.workdirs import default_work_root
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.loader import select


class NoWatch(wire.Stopwatch):
    """Measures nothing: what the harness did before requests were timed."""

    def piece(self) -> None:
        pass

    def done(self, usage, timings=None, finish=None) -> dict:
        return {}


def cost_per_request(n: int = 20_000) -> float:
    """Seconds the measurement adds to one request: 20 pieces, the record, one event line."""
    with tempfile.TemporaryDirectory() as tmp:
        events = EventLog(Path(tmp) / "events.jsonl")
        t = time.perf_counter()
        for _ in range(n):
            w = wire.Stopwatch(stream=True)
            for _ in range(20):
                w.piece()
            events.write({"type": "speed", **w.done({"prompt_tokens": 900, "completion_tokens": 80}, None, "stop")})
        return (time.perf_counter() - t) / n


def agent_seconds(watch: type, suite, tasks: str, tmp: Path, tag: str) -> tuple[list[float], int]:
    """Median-ready agent seconds per task, and the requests made, with the given Stopwatch in the builtin agent."""
    builtin.Stopwatch = watch
    results: list[dict] = []
    try:
        with ScriptedServer(persona="oracle", port=0) as srv:
            spec = RunSpec(run_id=f"wire-{tag}", model=srv.model_id, conds=select_conditions("base"),
                           tasks=select(suite, tasks), url=srv.url, agent="builtin", runs_root=tmp / "runs",
                           work_root=default_work_root(), workers=1)
            Scheduler(spec, suite, on_result=results.append).run()
            return [r["stages"]["agent_s"] for r in results], srv.chat_requests
    finally:
        builtin.Stopwatch = wire.Stopwatch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="programming")
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    suite = load_suite("kbench")
    per_request = cost_per_request()
    # a second measured run beside the first tells the noise floor: on/on2 is what "no difference" looks like here
    off, on, on2, requests = [], [], [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            order = [(NoWatch, off), (wire.Stopwatch, on), (wire.Stopwatch, on2)]
            for j, (watch, into) in enumerate(order[i % 3:] + order[:i % 3]):  # none always goes first
                secs, n = agent_seconds(watch, suite, args.tasks, Path(tmp), f"{i}-{j}")
                into += secs
                requests += n
    request_s = statistics.fmean(on) * len(on) / (requests / 3) if requests else float("nan")
    print(f"measurement per request: {per_request * 1e6:.1f} us (20 pieces, the record, one event line); "
          f"a builtin request with the scripted oracle takes ~{request_s * 1e3:.1f} ms of agent time: "
          f"{per_request / request_s:.2%} of it")
    # agent_s is recorded in whole milliseconds: the mean over every task and round resolves finer than the median
    print(f"agent seconds per task over {len(on) // args.rounds} tasks x {args.rounds} rounds: measured mean "
          f"{statistics.fmean(on) * 1e3:.2f} ms (median {statistics.median(on) * 1e3:.0f}), not measured mean "
          f"{statistics.fmean(off) * 1e3:.2f} ms (median {statistics.median(off) * 1e3:.0f}), ratio of means "
          f"{statistics.fmean(on) / statistics.fmean(off):.3f}; two measured runs against each other (the noise): "
          f"{statistics.fmean(on) / statistics.fmean(on2):.3f}")


if __name__ == "__main__":
    main()
