"""How the kernel grader reads and runs a submission: its language read from the code, a missing or linked
submission refused as a compile error, a folder nested past recursion depth, the end of a crashing kernel's
stderr in the reason, and the staged transport (tensors through host memory) grading as the direct one does."""

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest
from kernel_submissions import FIXTURES, KNOWN_GOOD, fixture_meta, nest

from gpu import grader
from gpu.grader import grade, reference_submission
from gpu.loader import PRIVATE_DIR, get_task
from gpu.models import Timeouts
from sandbox.isolation.trees import remove_tree


def test_language_detection_reads_code_not_comments(tmp_path):
    (tmp_path / "kernel.py").write_text('"""Triton or CUDA C++ (torch.utils.cpp_extension.load_inline) welcome."""\n'
                                        "import torch\n")
    assert grader.detect_language(tmp_path) == "torch"
    (tmp_path / "kernel.py").write_text("import triton\n")
    assert grader.detect_language(tmp_path) == "triton"
    (tmp_path / "kernel.py").write_text("from torch.utils import cpp_extension\n")
    assert grader.detect_language(tmp_path) == "cuda"
    (tmp_path / "kernel.py").unlink()
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    assert grader.detect_language(tmp_path) == "cuda"


def test_missing_submission_is_a_compile_error(tmp_path):
    r = grade(tmp_path / "nothing.py", "softmax_fp32")
    assert r["status"] == "compile_error" and r["score"] == 0.0
    (tmp_path / "other.py").write_text("x = 1\n")
    r = grade(tmp_path, "softmax_fp32")
    assert r["status"] == "compile_error" and "no kernel.py" in r["reason"]


def test_a_crash_reason_carries_the_end_of_the_submissions_stderr(tmp_path):
    """The author of a kernel that dies sees why: its last words on stderr are in the reason."""
    kernel = tmp_path / "kernel.py"
    kernel.write_text("import os, sys\n\n"
                      "def kernel(x, out):\n"
                      "    sys.stderr.write('kbench-last-words: shape unsupported\\n')\n"
                      "    sys.stderr.flush()\n"
                      "    os._exit(3)\n")
    r = grade(kernel, get_task("softmax_fp32"))
    assert r["status"] == "runtime_error" and r["score"] == 0.0
    assert "exited with code 3" in r["reason"] and "kbench-last-words: shape unsupported" in r["reason"]


STAGED_FIXTURES = ("return_input", "cached_result", "modify_input", "alias_output", "first_call_only",
                   "read_expected", "patch_timer")


def test_staged_transport_grades_like_the_direct_one(tmp_path):
    """Where CUDA IPC is refused (some GPU sandboxes), tensors travel through host memory and the worker copies
    them to and from its device. The same verdicts must come out: references (in-place outputs too) pass, and
    the cheats that depend on how outputs and inputs travel are still caught. On a CPU the worker's copies are
    private CPU tensors, which exercises the same code."""
    staged = dataclasses.replace(grader.GradeConfig.for_device("cpu"), transport="staged")
    short = get_task("softmax_fp32").model_copy(update={"timeouts": Timeouts(compile_s=60, call_s=4, total_s=60)})
    jobs = {f"ref:{t}": (reference_submission(get_task(t), tmp_path / t), get_task(t), "reference")
            for t in ("softmax_fp32", "adamw_step", "paged_kv_append")}
    jobs["stub:adamw_step"] = (get_task("adamw_step").folder / get_task("adamw_step").stub, get_task("adamw_step"),
                               "candidate")
    for name in STAGED_FIXTURES:
        jobs[f"fixture:{name}"] = (FIXTURES / f"{name}.py", short, "candidate")

    def run(item):
        key, (path, task, role) = item
        return key, grade(path, task, role=role, config=staged)

    with ThreadPoolExecutor(4) as pool:
        got = dict(pool.map(run, jobs.items()))
    for key, r in got.items():
        assert r["transport"] == "staged", (key, r["transport"])
    for t in ("softmax_fp32", "adamw_step", "paged_kv_append"):
        r = got[f"ref:{t}"]
        assert r["status"] == "ok" and r["score"] > 0, (t, r["reason"])
        assert r["correctness"]["passed"] and r["shapes"]
    assert got["stub:adamw_step"]["status"] in ("incorrect", "runtime_error") and got["stub:adamw_step"]["score"] == 0
    for name in STAGED_FIXTURES:
        r, want = got[f"fixture:{name}"], fixture_meta(FIXTURES / f"{name}.py")["expect"]
        assert r["status"] in want, (name, r["status"], r["reason"])


def test_unknown_transport_is_refused(tmp_path):
    bad = dataclasses.replace(grader.GradeConfig.for_device("cpu"), transport="carrier-pigeon")
    with pytest.raises(ValueError, match="transport must be one of"):
        grade(reference_submission(get_task("softmax_fp32"), tmp_path / "r"), "softmax_fp32", config=bad)


def test_a_submission_with_links_is_refused(tmp_path):
    """A folder submission with a link into the grader (or the host) would bring those files into the build."""
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "kernel.py").write_text((KNOWN_GOOD / "softmax_fp32" / "kernel.py").read_text())
    (sub / "peek").symlink_to(PRIVATE_DIR)
    r = grade(sub, "softmax_fp32")
    assert r["status"] == "compile_error" and "a link (peek ->" in r["reason"]
    link = tmp_path / "kernel.py"
    link.symlink_to(PRIVATE_DIR / "softmax_fp32" / "reference.py")
    r = grade(link, "softmax_fp32")
    assert r["status"] == "compile_error" and "a link" in r["reason"]


def test_a_submission_folder_past_recursion_depth_gets_a_status(tmp_path):
    """A folder 1500 levels deep beside the kernel: os.walk and shutil.copytree recurse and would raise
    RecursionError on Python 3.11. The tree is measured without recursion and the grading says why it stops."""
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "kernel.py").write_text((KNOWN_GOOD / "softmax_fp32" / "kernel.py").read_text())
    nest(sub, 1500)
    try:
        r = grade(sub, "softmax_fp32")
    finally:
        remove_tree(sub)  # pytest's own clean-up of old temporary folders recurses too
    assert r["status"] == "compile_error" and "nested deeper than" in r["reason"] and r["score"] == 0.0, r["reason"]
