"""Opt-in (make test-integration): the real `dagster dev` daemon runs a backfill of 2 models x 2 cells."""

import os
import subprocess
import sys
import urllib.request

import dagster as dg
import pytest
from conftest import REPO, free_port, wait_for

from kbench_dagster.store import ResultsStore, StoreBusy
from kbench_dagster.ui import prepare_home, start_dagster_dev, stop_group
from sandbox.servers.scripted import ScriptedServer

pytestmark = pytest.mark.integration


def test_backfill_of_two_models_by_two_cells_lands_in_duckdb(tmp_path):
    db = tmp_path / "results.duckdb"
    with ScriptedServer(persona="oracle", port=0) as a, ScriptedServer(persona="null", port=0) as b:
        env = {"KBENCH_ENDPOINTS": f"a={a.url},b={b.url}", "KBENCH_AGENT": "builtin",
               "KBENCH_TASKS": "fizz,counterrors", "KBENCH_RUNS": str(tmp_path / "runs"), "KBENCH_DB": str(db),
               "KBENCH_WORK": str(tmp_path / "work"), "KBENCH_SLOTS": "2"}
        home = prepare_home(tmp_path / "dagster_home", slots=2)
        port = free_port()
        log = open(tmp_path / "dagster-dev.log", "wb")
        proc = start_dagster_dev(home, port, env, log=log)
        try:
            def ui_up():
                try:
                    return urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2).status == 200
                except OSError:
                    return False

            wait_for(ui_up, 120, "the Dagster UI")
            instance = dg.DagsterInstance.from_config(str(home))
            instance.add_dynamic_partitions("model", ["scripted-oracle", "scripted-null"])
            store = ResultsStore(db)
            store.remember_model("scripted-oracle", "scripted-oracle", "a")
            store.remember_model("scripted-null", "scripted-null", "b")
            partitions = ",".join(f"{cell}|{model}" for model in ("scripted-oracle", "scripted-null")
                                  for cell in ("base.s1", "think.s1"))
            cp = subprocess.run([str(os.path.join(os.path.dirname(sys.executable), "dagster")), "job", "backfill",
                                 "-j", "benchmark", "--partitions", partitions, "--noprompt",
                                 "-w", str(REPO / "workspace.yaml")],
                                cwd=REPO, env={**os.environ, **env, "DAGSTER_HOME": str(home)},
                                capture_output=True, text=True, timeout=120)
            assert cp.returncode == 0, cp.stdout[-2000:] + cp.stderr[-2000:]

            def rows():
                try:
                    _, r = ResultsStore(db, lock_wait_s=5).query(
                        "SELECT model, condition, task, outcome FROM attempts ORDER BY ALL")
                    _, g = ResultsStore(db, lock_wait_s=5).query("SELECT count(*) FROM gradings")
                except (StoreBusy, Exception):
                    return None
                return r if len(r) == 8 and g[0][0] == 8 else None

            got = wait_for(rows, 420, "8 attempt rows and 8 gradings from the backfill")
        finally:
            stop_group(proc)
            log.close()
    by_model = {}
    for model, _cond, _task, outcome in got:
        by_model.setdefault(model, []).append(outcome)
    assert by_model["scripted-oracle"] == ["pass"] * 4
    assert set(by_model["scripted-null"]) <= {"nofile", "wrong"}
    assert {c for _, c, _, _ in got} == {"base", "think"}
