"""The builtin agent on the demo's tasks and a real model (the 0.5B pack of make test-real), twice: with the tools
offered natively (its default, calls in the text accepted too) and with --tool-format constrained (no tools field;
every reply one JSON action the server's grammar enforces). The pass counts are a measurement (bench/RESULTS.md):
the harness spread on one small model. The demo's own 1.5B model answers the same way at about half the speed; CI
runs this on every landing, so it takes the smaller one."""

import pytest
from test_local_model import model_or_skip

from kbench_dagster import service
from kbench_dagster.commands.core import SMOKE_TASKS
from kbench_dagster.run_settings import settings_of
from kbench_dagster.store import ResultsStore
from sandbox.servers import llama as lm


@pytest.mark.real_model
def test_builtin_native_against_constrained_on_the_demo_tasks(tmp_path, capsys):
    got = {}
    with lm.LocalModelServer("0.5b", port=0, model_path=model_or_skip()) as server:
        for fmt in ("auto", "constrained"):
            settings = settings_of(run_id=f"builtin-{fmt}", model=server.model_id, url=server.url,
                                   agent="builtin", tool_format=fmt, tasks=SMOKE_TASKS, conds="base",
                                   timeout_s=100.0, runs_root=str(tmp_path / "runs"),
                                   work_root=str(tmp_path / "work"))
            results = []
            service.run_and_store(service.plan_run(settings), ResultsStore(tmp_path / "r.duckdb"),
                                  on_result=results.append)
            got[fmt] = results
    n = len(SMOKE_TASKS.split(","))
    for results in got.values():
        assert len(results) == n and all(r["outcome"] in ("pass", "wrong", "crash", "timeout", "nofile", "infra")
                                         for r in results)
    assert all(r["native_calls"] == 0 for r in got["constrained"])  # no tools field: no native call can come
    with capsys.disabled():
        for fmt, results in got.items():
            print(f"\nbuiltin {fmt}: {sum(r['outcome'] == 'pass' for r in results)}/{n} pass; tool calls "
                  f"{sum(r['tool_calls'] for r in results)}, format errors "
                  f"{sum(r['tool_format_errors'] for r in results)}; "
                  + ", ".join(f"{r['task']} {r['outcome']}" for r in results))
