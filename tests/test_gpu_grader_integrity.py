"""The kernel grader's own files and buffers against a submission that runs out of the sandbox: an edited private
reference or a planted file is caught and undone (even a 1500-level tree, even when the grading raises), and a
kernel that scribbles on the grader's other buffers cannot break the eager baseline."""

import dataclasses
import math
import shutil
import textwrap

import pytest
from kernel_submissions import KNOWN_GOOD, nest

from gpu import grader, grading
from gpu.grader import grade
from gpu.integrity import FileGuard
from gpu.loader import PRIVATE_DIR
from sandbox.isolation.trees import remove_tree


def test_unsandboxed_worker_cannot_leave_the_grader_changed(tmp_path):
    """Out of the sandbox (the GPU path, for now) the submission's process has the grader's rights. A kernel that
    rewrites another task's private reference and plants a file beside them, to win later gradings, is rejected,
    and the grader's files are as they were."""
    private = tmp_path / "private"
    shutil.copytree(PRIVATE_DIR, private)
    victim = private / "gemm_bf16" / "reference.py"
    kernel = tmp_path / "kernel.py"
    kernel.write_text(textwrap.dedent(f"""
        from pathlib import Path
        Path({str(victim)!r}).write_text("def reference(a, b):\\n    return a[:0]\\n")
        Path({str(private / "planted.py")!r}).write_text("print('later')\\n")


        def kernel(x, out):
            out.copy_(x.softmax(-1))
    """))
    loose = dataclasses.replace(grader.GradeConfig.for_device("cpu"), sandboxed=False)
    r = grade(kernel, "softmax_fp32", private_root=private, config=loose)
    assert r["status"] == "cheat_rejected" and "own files were modified" in r["reason"], r["reason"]
    assert victim.read_bytes() == (PRIVATE_DIR / "gemm_bf16" / "reference.py").read_bytes()
    assert not (private / "planted.py").exists()
    honest = grade(KNOWN_GOOD / "softmax_fp32" / "kernel.py", "softmax_fp32", private_root=private, config=loose)
    assert honest["status"] == "skipped_no_gpu" and honest["correctness"]["passed"]  # no false alarm after the fix


def test_a_deep_tree_planted_among_the_graders_files_is_removed(tmp_path):
    """Out of the sandbox a submission can plant a 1500-level tree beside the grader's files; restoring them walks
    without recursion and removes the tree whole."""
    guarded = tmp_path / "guarded"
    (guarded / "sub").mkdir(parents=True)
    (guarded / "sub" / "a.py").write_text("x = 1\n")
    guard = FileGuard([guarded])
    (guarded / "sub" / "plant").mkdir()
    nest(guarded / "sub" / "plant", 1500)
    (guarded / "sub" / "a.py").write_text("x = 2\n")
    try:
        fixed = guard.restore()
    finally:
        remove_tree(guarded / "sub" / "plant")
    assert sorted(fixed) == [str(guarded.resolve() / "sub" / "a.py"), f"{guarded.resolve() / 'sub' / 'plant'} (added)"]
    assert (guarded / "sub" / "a.py").read_text() == "x = 1\n" and guard.restore() == []


def test_an_exception_mid_grading_still_restores_the_graders_files(tmp_path, monkeypatch):
    """Out of the sandbox a submission edits another task's private reference; whatever ends the grading, even an
    exception that escapes it, the edit does not outlive it."""
    private = tmp_path / "private"
    shutil.copytree(PRIVATE_DIR, private)
    victim = private / "gemm_bf16" / "reference.py"
    kernel = tmp_path / "kernel.py"
    kernel.write_text(f"from pathlib import Path\nPath({str(victim)!r}).write_text('broken')\n\n"
                      "def kernel(x, out):\n    e = (x - x.amax(-1, keepdim=True)).exp()\n"
                      "    out.copy_(e / e.sum(-1, keepdim=True))\n")

    def boom(*a, **k):
        raise RuntimeError("the grader failed")

    monkeypatch.setattr(grading, "time_eager", boom)
    loose = dataclasses.replace(grader.GradeConfig.for_device("cpu"), sandboxed=False)
    with pytest.raises(RuntimeError, match="the grader failed"):
        grade(kernel, "softmax_fp32", private_root=private, config=loose)
    assert victim.read_bytes() == (PRIVATE_DIR / "gemm_bf16" / "reference.py").read_bytes()


def test_scribbling_on_the_other_buffers_cannot_break_the_eager_baseline(tmp_path):
    """Each timed call also writes an out-of-range class index into every other rotating buffer (the grader's own
    shared tensors). The grader times its eager reference on its own copies, so the grading ends with a status."""
    kernel = tmp_path / "kernel.py"
    kernel.write_text(textwrap.dedent("""
        import sys
        import torch


        def kernel(logits, target, loss):
            x = logits.float()
            m = x.amax(dim=-1, keepdim=True)
            lse = (x - m).exp().sum(dim=-1).log() + m.squeeze(-1)
            loss.copy_(lse - x.gather(1, target[:, None].long()).squeeze(1))
            f = sys._getframe(1)
            while f is not None and "sets" not in f.f_locals:
                f = f.f_back
            if f is not None and f.f_locals.get("msg") == "time1":
                for s in f.f_locals["sets"]:
                    if s["target"] is not target:
                        s["target"].fill_(10**9)
    """))
    r = grade(kernel, "cross_entropy_bf16")
    assert r["status"] in ("ok", "flagged", "incorrect"), r["reason"]
    assert all(math.isfinite(s["eager_median_s"]) for s in r["shapes"])
