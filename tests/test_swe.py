"""A SWE-style JSONL dataset: nothing of it is read without --trusted-dataset true; trusted, each record becomes a
small git repository at its base (a setup step), validate proves FAIL_TO_PASS fails and PASS_TO_PASS passes on the
untouched repository and both pass after the reference fix, and the dataset runs end to end through the one loop."""

import json
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from sandbox.servers.scripted import ScriptedServer
from task_defs import load_suite
from task_defs.errors import TaskFileError
from task_defs.importers.materialize import materialize
from task_defs.importers.swe import UntrustedDataset, load_swe

CASES = Path(__file__).parent / "data" / "swe_cases.jsonl"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KBENCH_FIXTURE_CACHE", str(tmp_path / "cache"))


def test_nothing_is_read_or_run_without_trust(tmp_path, capsys):
    assert main(["swe", "--dataset", str(CASES), "validate", "--work", str(tmp_path / "w")]) == 2
    assert "--trusted-dataset true" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists() and not (tmp_path / "w").exists()
    with pytest.raises(UntrustedDataset):
        load_swe(tmp_path / "does-not-even-exist.jsonl", trusted=False)
    with pytest.raises(TaskFileError, match="kbench swe"):
        load_suite(CASES)  # never as a plain suite


def test_trusted_records_validate_and_bad_ones_are_named(tmp_path, capsys):
    args = ["--trusted-dataset", "true", "validate", "--work", str(tmp_path / "w")]
    assert main(["swe", "--dataset", str(CASES), *args]) == 0
    assert "3 ok, 0 failed" in capsys.readouterr().out
    recs = [json.loads(line) for line in CASES.read_text().splitlines()]
    broken = dict(recs[0], instance_id="calc__broken-1", PASS_TO_PASS=["python3 -c 'import calc; calc.average([])'"],
                  FAIL_TO_PASS=["python3 -c 'import calc; assert calc.average([2]) == 2'"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(broken) + "\n")
    assert main(["swe", "--dataset", str(bad), *args]) == 1
    out = capsys.readouterr().out
    assert "fail_to_pass_1 passes on the untouched folder" in out and "pass_to_pass_1 fails on the untouched" in out
    bad.write_text(json.dumps(dict(recs[0], FAIL_TO_PASS=[""])) + "\n")
    with pytest.raises(TaskFileError, match="calc__calc-1.FAIL_TO_PASS"):
        load_swe(bad, trusted=True)


def test_the_dataset_runs_end_to_end_in_git_repositories(tmp_path, capsys):
    name, fixtures, files = load_swe(CASES, trusted=True)
    suite = load_suite(materialize(name, fixtures, files))
    with ScriptedServer(persona="oracle", suite=suite, port=0) as srv:
        assert main(["swe", "--dataset", str(CASES), "--trusted-dataset", "true", "run", "swe1", "--url", srv.url,
                     "--model", srv.model_id, "--agent", "builtin", "--runs", str(tmp_path / "runs"), "--work",
                     str(tmp_path / "work"), "--db", str(tmp_path / "r.duckdb")]) == 0
    records = sorted((tmp_path / "runs" / "swe1").glob("base/*/s1/result.json"))
    got = {json.loads(p.read_text())["task"]: json.loads(p.read_text())["outcome"] for p in records}
    assert got == {"calc__calc_1": "pass", "inventory__inventory_9": "pass", "slug__slug_4": "pass"}
    assert all((p.parent / "workdir" / ".git").is_dir() for p in records)  # the setup step made a repository


def test_a_gold_patch_is_the_reference(tmp_path, capsys):
    rec = json.loads(CASES.read_text().splitlines()[0])
    del rec["reference"]
    rec["instance_id"] = "calc__calc-2"
    rec["patch"] = ("--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def average(xs):\n"
                    "-    return sum(xs) / len(xs)\n+    return sum(xs) / len(xs) if xs else 0.0\n")
    data = tmp_path / "patched.jsonl"
    data.write_text(json.dumps(rec) + "\n")
    assert main(["swe", "--dataset", str(data), "--trusted-dataset", "true", "validate", "--work",
                 str(tmp_path / "w")]) == 0
    assert "1 ok, 0 failed" in capsys.readouterr().out


def test_a_record_takes_the_environment_rules_of_every_imported_task(tmp_path):
    """A record's limits carry the resources a Harbor task's [environment] gives (memory, disk, CPUs), and its
    `env` and `image` are a fixture's: every session of the task gets them; a variable that would make a program load
    a file is refused naming the record and field, as for any task."""
    rec = json.loads(CASES.read_text().splitlines()[0])
    rec.update(limits={"timeout_seconds": 120, "memory_mb": 512, "storage_mb": 256, "cpus": 1},
               env={"CALC_LOCALE": "en"}, image="swe-env/calc:py311")
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    name, fixtures, files = load_swe(path, trusted=True)
    task = load_suite(materialize(name, fixtures, files)).tasks[0]
    assert (task.memory_mb, task.storage_mb, task.cpus, task.image) == (512, 256, 1, "swe-env/calc:py311")
    assert task.env == {"CALC_LOCALE": "en"}
    path.write_text(json.dumps(dict(rec, env={"LD_PRELOAD": "/repo/x.so"})) + "\n")
    with pytest.raises(TaskFileError, match="env"):
        load_swe(path, trusted=True)
