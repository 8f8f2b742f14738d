"""`kbench demo` (what `make demo` runs): a real local model, a smoke set with both agents, the report tables.

The command itself is added with the other agent-task commands (commands/core.py), which imports this module only
when the demo runs: it brings in the local model server, which no other command of that group needs."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from kbench_dagster import service
from kbench_dagster.parquet_store import open_store
from kbench_dagster.progress import Progress
from kbench_dagster.reporting import loaders, tables
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.run_settings import settings_of
from kbench_dagster.store import DEFAULT_DB
from sandbox.servers.llama import LocalModelServer
from sandbox.servers.model_pack import ensure_model


def run_demo(pack: str, tasks: str, timeout_s: float, runs: str = "runs",
             agents: tuple[str, ...] = ("pi", "builtin")) -> int:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    store = open_store(DEFAULT_DB)
    print(f"demo: assembling the {pack} model if needed ...", file=sys.stderr, flush=True)
    ensure_model(pack)
    run_ids = []
    with LocalModelServer(pack, port=0) as srv:
        print(f"demo: {srv.model_id} ready at {srv.url} in {srv.ready_s:.1f}s", file=sys.stderr, flush=True)
        for agent in agents:
            settings = settings_of(run_id=f"demo-{stamp}-{agent}", model=srv.model_id, url=srv.url,
                                   agent=agent, tasks=tasks, conds="base", timeout_s=timeout_s,
                                   runs_root=runs)
            run = service.plan_run(settings)
            spec = run.spec
            bar = Progress(len(spec.tasks), f"{agent:7}")

            def show(r: dict, bar=bar) -> None:
                bar.step(r["outcome"] == "pass")
                print(f"  {r['outcome']:8} {r['task']:14} {r['duration_s']:6.1f}s turns {r['turns']} "
                      f"tool calls {r['tool_calls']} format errors {r['tool_format_errors']}", file=sys.stderr,
                      flush=True)

            print(f"demo: {agent} on {len(spec.tasks)} tasks (condition base, seed 1, {timeout_s:g}s per session)",
                  file=sys.stderr, flush=True)
            service.run_and_store(run, store, on_result=show)
            run_ids.append(spec.run_id)
    for run_id in run_ids:
        print()
        print(tables.render(run_id, loaders.load_results(Path(runs), run_id)))
    index = build_board(store, DEFAULT_DB.parent / "board", runs_root=Path(runs))
    print(f"\nboard: {index}  (rows in {DEFAULT_DB}; `kbench board --serve` serves it on 127.0.0.1)")
    return 0
