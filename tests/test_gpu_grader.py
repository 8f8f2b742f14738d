"""The kernel grader on the CPU path: every reference passes the gate, every task's feature-ignoring variant
fails it, every stub scores 0, every adversarial fixture that needs no device is rejected, and the GPU-only parts
say skipped_no_gpu. The gradings run once per session, four at a time (each is its own process), and the tests read
their results. The tests marked gpu (the known-good kernel, both transports, the sandboxed worker) are here too:
bench/gpu/device.sh runs this file on a GPU. How a submission is read and run is in test_gpu_submissions.py, the
grader's own files in test_gpu_grader_integrity.py, the command line and the bench script in
test_gpu_grader_cli.py."""

import dataclasses
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from kernel_submissions import FIXTURES, HAS_CUDA, KNOWN_GOOD, fixture_meta

from gpu import grader
from gpu.grader import STATUSES, grade, reference_submission, variant_submission
from gpu.loader import PRIVATE_DIR, get_task, load_kernel_suite
from gpu.models import Timeouts
from sandbox.isolation.bwrap import bwrap_path

TASKS = load_kernel_suite()

FIXTURE_FILES = sorted(p for p in FIXTURES.glob("*.py"))


def _runnable_here(meta: dict) -> bool:
    return (meta["needs"] != "cuda" or HAS_CUDA) and (not meta["cpu-only"] or not HAS_CUDA)


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """Every grading the CPU path can do, keyed by (kind, name)."""
    tmp = tmp_path_factory.mktemp("kgrade")
    private = tmp / "private"
    shutil.copytree(PRIVATE_DIR, private)  # the edit_reference fixture attacks this copy, never the repository's
    target = private / "softmax_fp32" / "reference.py"
    os.environ["KBENCH_FIXTURE_TARGET"] = str(target)
    jobs = {}
    for t in TASKS:
        jobs[("reference", t.id)] = (reference_submission(t, tmp / "refs" / t.id), t, "reference")
        jobs[("variant", t.id)] = (variant_submission(t, tmp / "variants" / t.id, private), t, "candidate")
    stub_task = get_task("rmsnorm_bf16")  # one stub through the grader; the others are called in process below
    jobs[("stub", stub_task.id)] = (stub_task.folder / stub_task.stub, stub_task, "candidate")
    short = get_task("softmax_fp32").model_copy(update={"timeouts": Timeouts(compile_s=60, call_s=4, total_s=60)})
    for f in FIXTURE_FILES:
        meta = fixture_meta(f)
        if _runnable_here(meta):
            task = short if meta["task"] == "softmax_fp32" else get_task(meta["task"])
            jobs[("fixture", f.stem)] = (f, task, "candidate")
    for d in sorted(KNOWN_GOOD.iterdir()):
        jobs[("known_good", d.name)] = (d / "kernel.py", get_task(d.name), "candidate")
    # the eager reference of a GEMM calls matmul, which candidates may not
    gemm = get_task("gemm_bf16")
    jobs[("reference_as_candidate", "gemm_bf16")] = (reference_submission(gemm, tmp / "gemm_cand"), gemm, "candidate")

    def run(item):
        key, (path, task, role) = item
        return key, grade(path, task, role=role, private_root=private)

    try:
        with ThreadPoolExecutor(4) as pool:
            results = dict(pool.map(run, jobs.items()))
    finally:
        os.environ.pop("KBENCH_FIXTURE_TARGET", None)
    results["_private_target"] = target
    return results


@pytest.mark.parametrize("task_id", [t.id for t in TASKS])
def test_reference_passes_the_gate(graded, task_id):
    r = graded[("reference", task_id)]
    assert r["status"] in ("ok", "flagged"), r["reason"]
    assert r["correctness"]["passed"] and r["correctness"]["cases"] >= 8
    assert r["score"] > 0 and len(r["shapes"]) >= 2
    assert all(s["median_s"] > 0 and s["samples"] >= 6 for s in r["shapes"])


@pytest.mark.parametrize("task_id", [t.id for t in TASKS])
def test_the_feature_ignoring_variant_fails_the_gate(graded, task_id):
    """The wrong kernel each task's tolerance was measured against (gpu/precision.py), graded as a candidate: it
    must fail (incorrect, or rejected where it calls an operator the task forbids)."""
    r = graded[("variant", task_id)]
    assert r["status"] in ("incorrect", "cheat_rejected"), r["reason"]
    assert r["score"] in (0.0, None)


def test_untouched_stub_scores_zero(graded):
    r = graded[("stub", "rmsnorm_bf16")]
    assert r["status"] == "runtime_error" and "NotImplementedError" in r["reason"], r["reason"]
    assert r["score"] == 0.0


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_every_stub_raises_not_implemented(task):
    """What the graded stub above shows the grader turns into runtime_error and a 0: every stub does it."""
    from gpu.intake import load_private
    from gpu.precision import fresh
    from gpu.rand import Rand

    ref, stub = load_private(task.folder / "reference.py"), load_private(task.folder / task.stub)
    inputs = ref.make_inputs(dict(task.shapes.cpu_public[0]), Rand(0))
    want = ref.reference(**fresh(inputs))
    want = want if isinstance(want, tuple) else (want,)
    args = {n: inputs[n] for n in task.inputs if n not in task.inplace}
    args.update({n: (inputs[n] if n in task.inplace else torch.empty_like(w)) for n, w in zip(task.outputs, want)})
    with pytest.raises(NotImplementedError):
        getattr(stub, task.entry)(**args)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_adversarial_fixture_is_rejected(graded, path):
    meta = fixture_meta(path)
    if not _runnable_here(meta):
        pytest.skip("needs a GPU" if meta["needs"] == "cuda" else "graded for real on a GPU")
    r = graded[("fixture", path.stem)]
    assert r["status"] in meta["expect"], f"{path.name}: {r['status']}: {r['reason']}"
    assert r["score"] in (0.0, None)


def test_on_the_cpu_every_timed_call_is_validated(graded):
    """skip_calls computes one timed call in three and bets the others go unchecked. With a secret 30% checked it
    got through about once in 700 CPU gradings (a make test run saw it pass); checking every call catches it at
    the first one it skips, the first timed call, every time."""
    r = graded[("fixture", "skip_calls")]
    assert r["status"] == "incorrect" and "timed call 1 of" in r["reason"], r["reason"]


def test_every_cheat_ends_incorrect_or_rejected():
    """The fixtures the issue names all expect incorrect or cheat_rejected (the others test plain failures)."""
    plain = {"syntax_error", "hang", "crash", "cuda_extension", "half_reply"}  # half_reply: the grader must not hang
    for f in FIXTURE_FILES:
        if f.stem not in plain:
            assert fixture_meta(f)["expect"] <= {"incorrect", "cheat_rejected"}, f.name


def test_edited_private_reference_is_caught_and_restored(graded):
    r = graded[("fixture", "edit_reference")]
    if r["config"]["sandboxed"]:  # inside bwrap the private reference is not even visible: the edit never lands
        assert r["status"] in ("incorrect", "cheat_rejected")
    else:
        assert r["status"] == "cheat_rejected"
        assert "private reference was modified" in r["reason"]
    assert graded["_private_target"].read_bytes() == (PRIVATE_DIR / "softmax_fp32" / "reference.py").read_bytes()


def test_forbidden_op_is_rejected_for_candidates_only(graded):
    r = graded[("reference_as_candidate", "gemm_bf16")]
    assert r["status"] == "cheat_rejected" and "aten::mm" in r["reason"]
    assert graded[("reference", "gemm_bf16")]["status"] in ("ok", "flagged")


def test_triton_kernels_checked_by_the_interpreter_and_never_scored_zero(graded):
    for name in ("softmax_fp32", "rmsnorm_bf16"):
        r = graded[("known_good", name)]
        if HAS_CUDA:
            assert r["status"] in ("ok", "flagged"), r["reason"]
        elif grader.triton_available():
            assert r["status"] == "skipped_no_gpu" and "interpreter" in r["reason"]
            assert r["correctness"]["passed"] and r["score"] is None
        else:
            assert r["status"] == "skipped_no_gpu" and "Triton is not installed" in r["reason"]


def test_gpu_only_submissions_are_skipped_with_a_reason(monkeypatch, tmp_path):
    if HAS_CUDA:
        pytest.skip("this machine has a GPU: nothing is skipped")
    r = grade(FIXTURES / "cuda_extension.py", "softmax_fp32")
    assert r["status"] == "skipped_no_gpu" and "CUDA C++" in r["reason"] and r["score"] is None
    monkeypatch.setattr(grader, "triton_available", lambda: False)
    r = grade(KNOWN_GOOD / "softmax_fp32" / "kernel.py", "softmax_fp32")
    assert r["status"] == "skipped_no_gpu" and "Triton is not installed" in r["reason"] and r["score"] is None


def test_result_is_a_record_ready_to_store(graded):
    r = graded[("reference", "softmax_fp32")]
    json.dumps(r)  # plain data all the way down
    assert set(STATUSES) >= {r["status"]}
    for key in ("task", "status", "score", "unit", "shapes", "device", "seed", "correctness", "elapsed_s"):
        assert key in r
    dev = r["device"]
    assert dev["torch"] == torch.__version__ and dev["name"]
    if dev["kind"] == "cpu":
        assert dev["cpu_count"] >= 1
    else:
        assert dev["sm_count"] > 0 and dev["cuda"]
    s = r["shapes"][0]
    assert {"shape", "work", "median_s", "achieved", "eager_median_s", "speedup_vs_eager", "input_sets"} <= set(s)
    assert r["unit"] == "GB/s" and r["metric"] == "gbps"


@pytest.mark.gpu
def test_gpu_known_good_kernel_scores_and_side_stream_is_caught():
    if not HAS_CUDA:
        pytest.skip("skipped_no_gpu: no CUDA device")
    r = grade(KNOWN_GOOD / "softmax_fp32" / "kernel.py", "softmax_fp32")
    assert r["status"] in ("ok", "flagged"), r["reason"]
    assert r["score"] > 0 and r["device"]["sm_count"] > 0
    r = grade(FIXTURES / "side_stream.py", "softmax_fp32")
    assert r["status"] in ("incorrect", "cheat_rejected"), r["reason"]


@pytest.mark.gpu
def test_gpu_transports_agree():
    """On a GPU: the automatic transport says which one it chose, and the staged one grades the known-good kernel
    and catches the side-stream cheat just as the direct one does."""
    if not HAS_CUDA:
        pytest.skip("skipped_no_gpu: no CUDA device")
    kernel = KNOWN_GOOD / "softmax_fp32" / "kernel.py"
    auto = grade(kernel, "softmax_fp32")
    assert auto["transport"].split()[0] in ("direct", "staged"), auto["transport"]
    staged = dataclasses.replace(grader.GradeConfig.for_device("cuda"), transport="staged")
    r = grade(kernel, "softmax_fp32", config=staged)
    assert r["transport"] == "staged" and r["status"] in ("ok", "flagged"), r["reason"]
    r = grade(FIXTURES / "side_stream.py", "softmax_fp32", config=staged)
    assert r["status"] in ("incorrect", "cheat_rejected"), r["reason"]


@pytest.mark.gpu
def test_gpu_sandboxed_worker():
    """On a GPU with bubblewrap: the submission's process inside bwrap (own pid namespace, GPU nodes bound) still
    grades the known-good kernel. CUDA IPC may not cross the namespace; the automatic transport then stages."""
    if not HAS_CUDA:
        pytest.skip("skipped_no_gpu: no CUDA device")
    if bwrap_path() is None:
        pytest.skip("no bwrap on this GPU machine")
    boxed = dataclasses.replace(grader.GradeConfig.for_device("cuda"), sandboxed=True)
    r = grade(KNOWN_GOOD / "softmax_fp32" / "kernel.py", "softmax_fp32", config=boxed)
    print("sandboxed CUDA worker transport:", r["transport"])
    assert r["status"] in ("ok", "flagged"), r["reason"]


def test_the_grader_never_runs_what_the_submission_sends(graded):
    """The pickle_reply fixture answers with a pickle that would run code in the grader; replies are JSON only."""
    r = graded[("fixture", "pickle_reply")]
    assert r["status"] == "cheat_rejected" and "channel" in r["reason"], r["reason"]
    assert not graded["_private_target"].with_name("pwned").exists()
    assert "forged_status" in {k[1] for k in graded if k[0] == "fixture"}
