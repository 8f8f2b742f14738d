"""Storing one finished cell of a trials strike (1,500 trials) into the single DuckDB file, as `kbench trials run`
does at its end (kbench_dagster/ingest.py store_cell): the store side only, on synthetic rows shaped like
collect_rows makes them (trial_results, events_summary, requests, runs, and the other tables empty).

Prints the median (and fastest) of --repeat tries for:
  - a connect alone, and the file opened with SCHEMA and SCORED_VIEW run (what every connect did before their
    digest was kept in the file): the ratio is what a connect saves;
  - each table's insert (in a transaction rolled back);
  - the cell stored the way store_cell does it (one transaction with the manifest and its endpoint) against the
    three calls it made before (the partition, then the manifest, then the endpoint), rewriting the same partition,
    and a first write of a new partition.

    .venv/bin/python bench/store_ingest.py [--trials 1500] [--repeat 7]
"""

import argparse
import datetime
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbench_dagster.store import ResultsStore, RunManifest  # noqa: E402
from kbench_dagster.store_schema import all_tables, full_schema  # noqa: E402
from kbench_dagster.views import SCORED_VIEW  # noqa: E402

FAMILIES = ("classify", "extract", "tool_call", "refuse", "route")
ENDPOINT = {"name": "box-a", "engine": "llama.cpp", "engine_version": "b4500", "quant": "Q4_K_M",
            "hardware": "1x NVIDIA H200", "hardware_class": "gpu", "site": "lab", "model_id": "m-7b"}
URL = "http://127.0.0.1:8080/v1"


def cell(run_id: str, n: int) -> dict[str, list[dict]]:
    """One cell's rows: what varies per trial varies here, what a cell shares is shared."""
    start = datetime.datetime(2026, 12, 2, 20, 0, 0)
    where = {"endpoint": ENDPOINT["name"], "engine": ENDPOINT["engine"], "quant": ENDPOINT["quant"],
             "hardware": ENDPOINT["hardware"], "hardware_class": ENDPOINT["hardware_class"]}
    base = {"run_id": run_id, "condition": "base", "seed": 1}
    trials, events, requests = [], [], []
    for i in range(n):
        task = f"{FAMILIES[i % 5]}_{i:04d}"
        exchange = json.dumps({"mode": "json_schema", "refused_formats": [], "replies": [
            {"content": json.dumps({"label": f"answer {i}", "why": "x" * (i % 300)}), "tool_calls": [],
             "finish": "stop", "error": None}]})
        trials.append({**base, "model": "m-7b", "outcome": ("pass", "wrong", "pass", "refused")[i % 4],
                       "sampling": "temperature 0", "duration_s": 0.4 + (i % 97) / 50, "infra_error": None,
                       "suite_fingerprint": "f" * 64, "graded_at": start + datetime.timedelta(seconds=i // 60),
                       "trial": task, "family": FAMILIES[i % 5], "grade": ("easy", "medium", "hard")[i % 3],
                       "oracle": "label", "score": (1.0, 0.0, 1.0, 0.5)[i % 4], "cause": None if i % 4 != 1 else
                       "wrong label", "detail": "", "forms": "json_schema" if i % 2 else "json_schema,tools",
                       "ttft_s": 0.05 + (i % 31) / 1000, "shape": f"label:{i % 340}", "response_format":
                       "json_schema" if i % 2 else "tools", "elicitation": "0fff84e54f38ac67", "rules": "9" * 64,
                       "rounds": 1 + i % 2, "exchange": exchange, **where})
        events.append({**base, "task": task, "events": 4 + i % 2, "prompts": 1, "replies": 1 + i % 2,
                       "tool_calls": 0, "tool_results": 0, "errors": 0, "bytes": 2000 + 7 * (i % 700)})
        requests.append({**base, "model": "m-7b", "agent": "api", "kind": "trials", "task": task, "n": 1,
                         "server_url": URL, "endpoint": where["endpoint"], "engine": where["engine"],
                         "hardware_class": where["hardware_class"], "stream": True, "finish": "stop",
                         "ttft_s": 0.05 + (i % 31) / 1000, "queued_s": (i % 67) / 100, "total_s": 0.4 + (i % 97) / 50,
                         "gen_s": 0.3, "prompt_tokens": 100 + i % 594, "completion_tokens": 6 + i % 51,
                         "gen_tok_s": 40.0 + i % 1000 / 10, "server_prompt_tok_s": None, "server_gen_tok_s": None})
    runs = [{**base, "model": "m-7b", "agent": "api", "server_url": URL, "suite_fingerprint": "f" * 64,
             "attempts": n, "infra_failures": 0, "started_at": start,
             "finished_at": start + datetime.timedelta(seconds=n // 60)}]
    filled = {"trial_results": trials, "events_summary": events, "requests": requests, "runs": runs}
    return {t: filled.get(t, []) for t in all_tables()}


def manifest(run_id: str) -> dict:
    return {"run_id": run_id, "created": "2026-12-02T20:00:00", "suite": {"name": "trials", "fingerprint": "f" * 64},
            "versions": {"kbench": "0"}, "settings": {"model": "m-7b", "agent": "api", "url": URL},
            "endpoint": ENDPOINT}


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def show(label: str, times: list[float]) -> float:
    mid = statistics.median(times)
    print(f"  {label:58s} {mid * 1000:7.1f} ms  (fastest {min(times) * 1000:.1f})")
    return mid


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1500)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rows, m = cell("strike", args.trials), manifest("strike")
    print(f"one cell: {args.trials} trial_results, {len(rows['events_summary'])} events_summary, "
          f"{len(rows['requests'])} requests rows")
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultsStore(Path(tmp) / "kb.duckdb")
        first = timed(lambda: store.replace_partitions({"strike/base.s1": rows}, [RunManifest(m)]), 1)

        def connect():
            with store.connect():
                pass

        def connect_with_ddl() -> float:
            """A connect as it was before: the file opened and SCHEMA and SCORED_VIEW run. Replacing the view drops
            the digest, so a connect (not timed) sets it again for the next try."""
            t = time.perf_counter()
            con = duckdb.connect(str(store.path))
            con.execute(full_schema())
            con.execute(SCORED_VIEW)
            con.close()
            took = time.perf_counter() - t
            connect()
            return took

        print("connect")
        plain = show("connect alone (the file's schema is current)", timed(connect, args.repeat))
        ddl = show("connect running SCHEMA and SCORED_VIEW (as before)",
                   [connect_with_ddl() for _ in range(args.repeat)])
        print(f"  ratio {ddl / plain:.2f}x")

        print("insert, per table (in an open connection, rolled back)")
        with store.connect() as con:
            for table in ("trial_results", "events_summary", "requests"):
                def insert(table=table):
                    con.execute("BEGIN TRANSACTION")
                    store._insert(con, table, rows[table], "x")
                    con.execute("ROLLBACK")
                show(f"{table}, {len(rows[table])} rows", timed(insert, args.repeat))

        def one_transaction():
            store.replace_partitions({"strike/base.s1": rows}, [RunManifest(m)])

        def three_calls():
            store.replace_partition("strike/base.s1", rows)
            store.upsert_manifest(m)
            store.save_endpoint(m["endpoint"], m["settings"]["url"])

        print("store the cell")
        show("first write into a new file (schema made)", first)
        one = show("rewrite, one transaction with manifest and endpoint", timed(one_transaction, args.repeat))
        three = show("rewrite, three calls (partition, manifest, endpoint)", timed(three_calls, args.repeat))
        print(f"  ratio {three / one:.2f}x")
        keys = iter(range(args.repeat))
        show("a new partition beside it, one transaction", timed(
            lambda: store.replace_partitions({f"strike{next(keys)}/base.s1": rows}, [RunManifest(m)]), args.repeat))
        _, found = store.query("SELECT count(*) FROM trial_results WHERE partition_key = 'strike/base.s1'")
        if found != [(args.trials,)]:
            raise SystemExit(f"the cell holds {found} trial rows, not {args.trials}")


if __name__ == "__main__":
    main()
