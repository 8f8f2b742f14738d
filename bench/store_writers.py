"""Eight writer processes storing different partitions at once: the Parquet folder (kbench_dagster/parquet_store.py)
against the single DuckDB file (kbench_dagster/store.py, one writer at a time, the others retrying on its lock).
Each writer stores --partitions partitions of --rows attempts and as many gradings; afterwards every partition
must hold exactly its rows (none lost, none twice). Prints the wall time of each store and their ratio.

    .venv/bin/python bench/store_writers.py [--writers 8] [--partitions 10] [--rows 200]
"""

import argparse
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def rows(writer: int, part: int, n: int) -> dict:
    base = {"run_id": f"w{writer}", "model": f"model-{writer}", "agent": "builtin", "condition": "base"}
    attempts = [{**base, "task": f"task_{i}", "seed": part, "outcome": "pass" if i % 3 else "wrong",
                 "category": "programming", "tier": "easy", "duration_s": 1.5 + i, "turns": i % 7} for i in range(n)]
    gradings = [{**base, "task": f"task_{i}", "seed": part, "outcome": a["outcome"]} for i, a in enumerate(attempts)]
    return {"attempts": attempts, "gradings": gradings}


def writer(path: str, n: int, partitions: int, count: int) -> None:
    sys.path.insert(0, str(REPO))
    from kbench_dagster.parquet_store import open_store

    store = open_store(path)
    for p in range(partitions):
        store.replace_partition(f"w{n}/p{p}", rows(n, p, count))


def run(path: Path, writers: int, partitions: int, count: int) -> float:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=writer, args=(str(path), n, partitions, count)) for n in range(writers)]
    t = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    wall = time.perf_counter() - t
    if any(p.exitcode for p in procs):
        raise SystemExit(f"a writer failed on {path}: exit codes {[p.exitcode for p in procs]}")
    from kbench_dagster.parquet_store import open_store

    _, found = open_store(path).query("SELECT partition_key, count(*), count(DISTINCT task) FROM attempts GROUP BY ALL")
    lost = writers * partitions - len(found)
    wrong = [k for k, n, d in found if n != count or d != count]
    print(f"{path.name}: {writers} writers x {partitions} partitions x {count} rows in {wall:.2f} s; "
          f"partitions missing {lost}, partitions with lost or doubled rows {len(wrong)}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--partitions", type=int, default=10)
    ap.add_argument("--rows", type=int, default=200)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory(prefix="kbench-writers-") as d:
        one = run(Path(d) / "one.duckdb", args.writers, args.partitions, args.rows)
        shared = run(Path(d) / "shared", args.writers, args.partitions, args.rows)
    print(f"the Parquet folder took {shared / one:.2f} of the single file's time ({multiprocessing.cpu_count()} cpus)")


if __name__ == "__main__":
    main()
