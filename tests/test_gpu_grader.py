"""The kernel grader on the CPU path: every reference passes the gate, every stub scores 0, every adversarial
fixture that needs no device is rejected, and the GPU-only parts say skipped_no_gpu. The gradings run once per
session, four at a time (each is its own process), and the tests read their results."""

import dataclasses
import json
import math
import os
import shutil
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch
from conftest import REPO

from gpu import cli, grader, grading
from gpu.grader import STATUSES, grade, reference_submission
from gpu.integrity import FileGuard
from gpu.loader import PRIVATE_DIR, get_task, load_kernel_suite
from gpu.models import Timeouts
from kbench_dagster.cli import main as cli_main
from sandbox.isolation.bwrap import bwrap_path
from sandbox.isolation.trees import remove_tree

FIXTURES = REPO / "tests" / "gpu_fixtures"
KNOWN_GOOD = REPO / "bench" / "gpu" / "kernels"
HAS_CUDA = torch.cuda.is_available()
TASKS = load_kernel_suite()


def fixture_meta(path: Path) -> dict:
    meta = {"needs": "", "cpu-only": ""}
    for line in path.read_text().splitlines():
        if line.startswith("# ") and ":" in line:
            key, _, val = line[2:].partition(":")
            meta[key.strip()] = val.strip()
    meta["expect"] = set(meta["expect"].split(","))
    return meta


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
        jobs[("stub", t.id)] = (t.folder / t.stub, t, "candidate")
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
def test_untouched_stub_scores_zero(graded, task_id):
    r = graded[("stub", task_id)]
    assert r["status"] in ("incorrect", "runtime_error"), r["reason"]
    assert r["score"] == 0.0


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


def test_cli_list_show_grade(tmp_path, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="kbench")
    cli.add_kernels_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["kernels", "list", "--markdown"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == len(TASKS) + 2 and "| gemm_fp8_rowwise |" in out
    assert cli_main(["kernels", "show", "rope_neox_bf16"]) == 0
    out = capsys.readouterr().out
    assert "kernel(q, k, cos, sin, q_out, k_out)" in out and "hidden shapes" not in out
    assert cli_main(["kernels", "show", "rope_neox_bf16", "--all"]) == 0
    assert "hidden shapes" in capsys.readouterr().out
    assert cli_main(["kernels", "show", "nope"]) == 2
    dest = tmp_path / "r.json"
    rc = cli_main(["kernels", "grade", str(FIXTURES / "return_input.py"), "--task", "softmax_fp32",
                   "--json", str(dest)])
    assert rc == 1
    assert json.loads(dest.read_text())["status"] == "incorrect"
    assert "softmax_fp32: incorrect" in capsys.readouterr().err
    rc = cli_main(["kernels", "grade", str(FIXTURES / "return_input.py"), "--task", "softmax_fp32",
                   "--transport", "staged", "--json", str(dest)])
    staged = json.loads(dest.read_text())
    assert rc == 1 and staged["status"] == "incorrect" and staged["transport"] == "staged"
    capsys.readouterr()
    if not HAS_CUDA:
        assert cli_main(["kernels", "grade", str(FIXTURES / "return_input.py"), "--task", "softmax_fp32",
                         "--device", "cuda"]) == 2
        assert "torch sees no CUDA device" in capsys.readouterr().err
    assert cli_main(["kernels", "grade", str(tmp_path / "missing.py"), "--task", "softmax_fp32"]) == 2


@pytest.mark.gpu
def test_gpu_known_good_kernel_scores_and_side_stream_is_caught():
    if not HAS_CUDA:
        pytest.skip("skipped_no_gpu: no CUDA device")
    r = grade(KNOWN_GOOD / "softmax_fp32" / "kernel.py", "softmax_fp32")
    assert r["status"] in ("ok", "flagged"), r["reason"]
    assert r["score"] > 0 and r["device"]["sm_count"] > 0
    r = grade(FIXTURES / "side_stream.py", "softmax_fp32")
    assert r["status"] in ("incorrect", "cheat_rejected"), r["reason"]


def test_bench_script_without_a_gpu_says_so_and_exits_zero():
    if HAS_CUDA:
        pytest.skip("this machine has a GPU: the bench would really run")
    import subprocess
    import sys

    p = subprocess.run([sys.executable, str(REPO / "bench" / "gpu" / "run.py")], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and "no CUDA device" in p.stdout


def test_bench_script_rehearses_on_the_cpu(tmp_path):
    """The one prepared GPU script runs end to end on the CPU path (--device cpu), so a GPU session never finds
    it broken: references graded and passing, the known-good Triton kernels checked by the interpreter, the
    record and the tables written, and nothing claims to be a GPU figure."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, str(REPO / "bench" / "gpu" / "run.py"), "--device", "cpu",
                        "--tasks", "softmax_fp32,rmsnorm_bf16", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    rec = json.loads((tmp_path / "bench_gpu.json").read_text())
    assert rec["rehearsal"] is True and rec["complete"] is True and rec["device"]["kind"] == "cpu"
    assert sorted(r["task"] for r in rec["references"]) == ["rmsnorm_bf16", "softmax_fp32"]
    assert all(r["status"] == "ok" and r["score"] > 0 for r in rec["references"])
    assert sorted(k["task"] for k in rec["known_good"]) == ["rmsnorm_bf16", "softmax_fp32"]
    assert all(k["status"] == "skipped_no_gpu" for k in rec["known_good"])
    assert "REHEARSAL on the CPU" in p.stdout and "| softmax_fp32 (reference) | ok |" in p.stdout
    assert "do_bench difference" not in p.stdout  # no timing comparison is claimed without a GPU


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


def test_the_grader_never_runs_what_the_submission_sends(graded):
    """The pickle_reply fixture answers with a pickle that would run code in the grader; replies are JSON only."""
    r = graded[("fixture", "pickle_reply")]
    assert r["status"] == "cheat_rejected" and "channel" in r["reason"], r["reason"]
    assert not graded["_private_target"].with_name("pwned").exists()
    assert "forged_status" in {k[1] for k in graded if k[0] == "fixture"}


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


def _nest(folder: Path, levels: int) -> None:
    """`levels` folders inside one another under `folder`, made through descriptors (os.makedirs recurses)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)


def test_a_submission_folder_past_recursion_depth_gets_a_status(tmp_path):
    """A folder 1500 levels deep beside the kernel: os.walk and shutil.copytree recurse and would raise
    RecursionError on Python 3.11. The tree is measured without recursion and the grading says why it stops."""
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "kernel.py").write_text((KNOWN_GOOD / "softmax_fp32" / "kernel.py").read_text())
    _nest(sub, 1500)
    try:
        r = grade(sub, "softmax_fp32")
    finally:
        remove_tree(sub)  # pytest's own clean-up of old temporary folders recurses too
    assert r["status"] == "compile_error" and "nested deeper than" in r["reason"] and r["score"] == 0.0, r["reason"]


def test_a_deep_tree_planted_among_the_graders_files_is_removed(tmp_path):
    """Out of the sandbox a submission can plant a 1500-level tree beside the grader's files; restoring them walks
    without recursion and removes the tree whole."""
    guarded = tmp_path / "guarded"
    (guarded / "sub").mkdir(parents=True)
    (guarded / "sub" / "a.py").write_text("x = 1\n")
    guard = FileGuard([guarded])
    (guarded / "sub" / "plant").mkdir()
    _nest(guarded / "sub" / "plant", 1500)
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
