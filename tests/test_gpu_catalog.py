"""The kernel catalog, the uncapped score, and kernel tasks in Harbor's layout (KBench's): exported folders load
in our own Harbor importer, their verifier grades on its own from the bundled grader and writes Harbor's reward
files, and importing them back gives the same tasks byte for byte."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpu import audit, catalog, harbor_layout, roofline
from gpu.grader import reference_submission
from gpu.loader import PRIVATE_DIR, TASKS_DIR, get_task, load_kernel_suite, load_kernel_task
from task_defs.importers.harbor import load_task as load_harbor_task


def test_the_checked_in_catalog_matches_the_tasks():
    tasks = load_kernel_suite()
    assert catalog.stale(tasks) is None
    doc = json.loads(catalog.CATALOG_FILE.read_text())
    assert doc["tasks_count"] == len(tasks) == len(doc["tasks"]) and sum(doc["families"].values()) == len(tasks)
    by_id = {r["id"]: r for r in doc["tasks"]}
    for t in tasks:
        row = by_id[t.id]
        assert (row["family"], row["metric"], row["gpus"], row["keywords"]) == (t.family, t.metric, t.gpus,
                                                                                  list(t.keywords))
        assert row["roofline_us"] == round(roofline.largest_graded(t)[1] * 1e6, 1) > 250


def test_a_stale_catalog_is_named(tmp_path, monkeypatch, capsys):
    from kbench_dagster.cli import main as cli_main

    assert cli_main(["kernels", "catalog", "--check"]) == 0
    f = tmp_path / "CATALOG.json"
    monkeypatch.setattr(catalog, "CATALOG_FILE", f)
    assert cli_main(["kernels", "catalog", "--check"]) == 1 and "kernels catalog --write" in capsys.readouterr().err
    assert "missing" in catalog.stale(load_kernel_suite(), f)
    f.write_text("{}\n")
    assert "does not match" in catalog.stale(load_kernel_suite(), f)


def _timed(achieved: float) -> dict:
    return {"device": {"kind": "cuda", "name": "NVIDIA H100 80GB HBM3", "sm_count": 132}, "flags": [],
            "shapes": [{"achieved": achieved, "shape": {"M": 1}, "speedup_vs_eager": 1.0, "median_s": 1e-3,
                        "grader_wall_median_s": 1.1e-3}]}


def test_a_score_above_the_physical_peak_is_kept_and_flagged_for_review():
    task = get_task("gemm_bf16")  # bf16 tflops: the H100 table's bound is 989.5
    status, reason, score = audit.audit(r := _timed(1500.0), task, "cuda", 1e-4)
    assert status == "flagged" and score == pytest.approx(1500.0) and r["above_peak"] is True
    assert reason.startswith("above_peak: 1500.0 TFLOP/s") and "for review" in reason
    status, reason, score = audit.audit(r := _timed(900.0), task, "cuda", 1e-4)
    assert status == "flagged" and "80% of the physical peak" in reason and r["above_peak"] is False
    assert audit.audit(_timed(300.0), task, "cuda", 1e-4)[:2] == ("ok", "")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("harbor")
    tasks = [get_task("rmsnorm_bf16"), get_task("gemm_bf16")]
    return out, tasks, harbor_layout.export_tasks(tasks, out)


def test_exported_folders_are_harbor_tasks_that_ask_for_a_gpu(exported):
    out, tasks, folders = exported
    assert [f.relative_to(out).as_posix() for f in folders] == ["norm/rmsnorm_bf16", "gemm/gemm_bf16"]
    for f, t in zip(folders, tasks):
        fixture = load_harbor_task(f)  # our own Harbor importer reads the layout
        assert "environment.gpus = 1" in fixture.unavailable
        assert "/tests/test.sh" in fixture.verification.command or "test.sh" in fixture.verification.command
        prompt = (f / "instruction.md").read_text()
        assert f"{t.entry}({', '.join(t.kernel_args())})" in prompt and "## Precision" in prompt
        assert str(t.shapes.hidden[0]) not in prompt
        env = {p.name for p in (f / "environment").iterdir()}
        assert env == {"Dockerfile", "reference.py", t.stub}  # the agent's image holds nothing private
        assert (f / "tests" / "grader" / "private" / t.id / "precision.py").is_file()


def _verify(folder: Path, kernel: Path, logs: Path) -> dict:
    # an isolated interpreter from another folder: only the bundled grader can be imported
    env = {**os.environ, "KBENCH_KERNEL": str(kernel), "KBENCH_VERIFIER_LOGS": str(logs)}
    env.pop("PYTHONPATH", None)
    logs.parent.mkdir(parents=True)
    subprocess.run([sys.executable, "-I", str(folder / "tests" / "verify.py")], cwd=logs.parent, env=env,
                   check=True, capture_output=True, timeout=300)
    return {n: json.loads((logs / f"{n}.json").read_text()) for n in ("reward", "details")}


def test_the_exported_verifier_grades_alone_and_writes_harbors_reward_files(exported, tmp_path):
    _, (task, _), (folder, _) = exported
    good = _verify(folder, reference_submission(task, tmp_path / "ref"), tmp_path / "a" / "logs")
    assert good["details"]["status"] in ("ok", "flagged") and good["reward"]["reward"] == good["details"]["score"] > 0
    bundled = folder / "tests" / "grader" / "gpu"
    assert good["details"]["task"] == task.id and bundled.is_dir()
    stub = _verify(folder, folder / "environment", tmp_path / "b" / "logs")
    assert stub["details"]["status"] in ("incorrect", "runtime_error") and stub["reward"] == {"reward": 0.0}


def test_import_gives_back_the_same_tasks_and_names_a_broken_one(exported, tmp_path):
    out, tasks, folders = exported
    broken = tmp_path / "src"
    import shutil

    shutil.copytree(out, broken)
    toml = broken / "gemm" / "gemm_bf16" / "tests" / "grader" / "tasks" / "gemm_bf16" / "task.toml"
    toml.write_text(toml.read_text().replace('metric = "tflops"', 'metric = "fast"'))
    linked = broken / "norm" / "rmsnorm_bf16"
    shutil.copytree(linked, broken / "norm" / "linked")
    secret = tmp_path / "secret.txt"
    secret.write_text("host file\n")
    (broken / "norm" / "linked" / "tests" / "grader" / "private" / "rmsnorm_bf16" / "precision.py").unlink()
    (broken / "norm" / "linked" / "tests" / "grader" / "private" / "rmsnorm_bf16" / "precision.py").symlink_to(secret)
    tdir, pdir = tmp_path / "tasks", tmp_path / "private"
    done, refused = harbor_layout.import_tasks(broken, tdir, pdir)
    assert done == ["rmsnorm_bf16"] and len(refused) == 2, refused
    assert "metric" in str(refused[0]) and str(toml) in str(refused[0])
    assert "a link" in str(refused[1]) and "linked" in str(refused[1])  # never copied through into the repository
    done, _ = harbor_layout.import_tasks(out, tdir, pdir)
    assert done == ["gemm_bf16"]  # rmsnorm_bf16 is there already: kept, and named
    for t in tasks:
        back = load_kernel_task(tdir / t.id, pdir)
        assert back.model_dump() == t.model_dump()
        for name in ("task.toml", "instruction.md", "reference.py", t.stub):
            assert (tdir / t.id / name).read_bytes() == (TASKS_DIR / t.id / name).read_bytes()
        for name in ("reference.py", "precision.py"):
            assert (pdir / t.id / name).read_bytes() == (PRIVATE_DIR / t.id / name).read_bytes()
