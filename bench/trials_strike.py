"""A strike of the tool-use trials against a scripted server with a fixed number of slots: how close the run loop
comes to the server's ideal throughput, and what a re-run costs once every reply is in the cache.

The scripted server (in this process; the strike is a `kbench trials run` process of its own) holds each request
for --latency seconds in one of --slots slots, so the ideal time is (requests x latency / slots). Two figures: the
server's busy window (first request in to last reply out) against the ideal, which is the loop's throughput, and
the whole command's wall time against it (start-up and the storing of 1,500 rows included). Then the same strike
under a new run id, every reply answered from the reply cache (and every shell trial's run from the same cache);
then that run again, when every attempt already has its result (the resume path); both also inside one process,
--repeat times each under a new run id (median, fastest and slowest: these machines are shared and noisy). A
reference loop (3 million additions in Python) is timed beside them, to scale the figures to another machine.

    .venv/bin/python bench/trials_strike.py [--trials 1500] [--slots 4] [--latency 0.1] [--parallel 8] [--repeat 5]
"""

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KBENCH = [sys.executable, "-m", "kbench_dagster.cli"]


def strike(url: str, tmp: Path, run_id: str, limit: int, parallel: int, slots: int) -> tuple[float, dict]:
    """The strike as a user runs it: its own process, start-up and store included."""
    t = time.perf_counter()
    subprocess.run([*KBENCH, "trials", "run", str(tmp / f"{run_id}.json"), "--url", url, "--run-id", run_id,
                    "--limit", str(limit), "--parallel", str(parallel), "--server-slots", str(slots),
                    "--runs", str(tmp / "runs"), "--work", str(tmp / "work"), "--db", str(tmp / "t.duckdb"),
                    "--temperature", "0"], check=True, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, json.loads((tmp / f"{run_id}.json").read_text())


def requests_of(runs: Path, run_id: str) -> int:
    from sandbox.engine.attempt_reader import records_of

    return sum(r.recorded().get("turns") or 0 for r in records_of(runs / run_id))


def spread(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s (fastest {min(times):.2f}, slowest {max(times):.2f})"


def reference_loop() -> float:
    """The fastest of three runs of a fixed pure-Python loop: how fast this machine runs interpreter work now."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        total = 0
        for i in range(3_000_000):
            total += i
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1500)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--parallel", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5, help="in-process cached re-runs, each under a new run id")
    ap.add_argument("--client-slots", type=int, default=None,
                    help="--server-slots of the strike (default: the server's own count; 0: no bound, the server "
                         "queues what is over its slots)")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from sandbox.chatwork.trials import ToolTrials

    families = ToolTrials().families
    per_family = max(len(f.trials) for f in families)
    # the first N of each family, fewest per family that reach --trials
    limit = next(k for k in range(1, per_family + 1) if sum(min(k, len(f.trials)) for f in families) >= args.trials)
    from sandbox.servers.scripted import ScriptedServer

    with ScriptedServer("oracle", suite="trials", port=0, slots=args.slots, latency=args.latency) as srv, \
            tempfile.TemporaryDirectory(prefix="kbench-strike-") as d:
        tmp = Path(d)
        client = args.slots if args.client_slots is None else args.client_slots
        wall, doc = strike(srv.url, tmp, "first", limit, args.parallel, client)
        n = sum(f["trials"] for f in doc["families"].values())
        asked = requests_of(tmp / "runs", "first")
        assert asked == srv.chat_requests, (asked, srv.chat_requests)
        ideal = asked * args.latency / args.slots
        print(f"{n} trials, {asked} requests, {args.slots} slots x {args.latency:g} s, {args.parallel} workers, "
              f"client slots {client or 'unbounded'}: ideal {ideal:.1f} s; server busy {srv.busy_s:.1f} s, "
              f"throughput {ideal / srv.busy_s:.3f} of ideal; the whole command {wall:.1f} s ({ideal / wall:.3f}, "
              "start-up and store included)")
        cached, doc2 = strike(srv.url, tmp, "cached", limit, args.parallel, client)
        assert sum(f["trials"] for f in doc2["families"].values()) == n and srv.chat_requests == asked
        print(f"the same strike under a new run id, every reply from the cache (no request): {cached:.2f} s "
              f"({1000 * cached / n:.2f} ms a trial, records and store included)")
        again, _ = strike(srv.url, tmp, "cached", limit, args.parallel, client)
        print(f"that run once more, every attempt already done (resume): {again:.2f} s")
        from kbench_dagster.cli import main as kbench

        def in_process(out: str, run_id: str) -> float:
            quiet = io.StringIO()
            t = time.perf_counter()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                kbench(["trials", "run", str(tmp / out), "--url", srv.url, "--run-id", run_id, "--limit", str(limit),
                        "--parallel", str(args.parallel), "--server-slots", str(client), "--runs", str(tmp / "runs"),
                        "--work", str(tmp / "work"), "--db", str(tmp / "t.duckdb"), "--temperature", "0"])
            return time.perf_counter() - t

        in_process("warm.json", "warm")  # imports and the suite's loading, paid once by any process
        fresh, again = [], []
        for i in range(args.repeat):
            fresh.append(in_process("fresh.json", f"fresh{i}"))
            again.append(in_process("again.json", f"fresh{i}"))
        print(f"inside one Python process (no interpreter start, no imports), {args.repeat} times: a new run id, every "
              f"reply and shell run from the cache, rows stored: {spread(fresh)}; the same run again (resume): "
              f"{spread(again)}")
        assert srv.chat_requests == asked
    print(f"reference loop: {reference_loop():.3f} s")
    print(f"cpus {os.cpu_count()}")


if __name__ == "__main__":
    main()
