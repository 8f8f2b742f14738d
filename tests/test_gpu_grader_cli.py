"""The kernel grader's command line (kbench kernels list, show and grade) and the prepared GPU bench script: it says
so and exits 0 without a GPU, and rehearses end to end on the CPU."""

import json

import pytest
from conftest import REPO
from kernel_submissions import FIXTURES, HAS_CUDA

from gpu import cli
from gpu.loader import load_kernel_suite
from kbench_dagster.cli import main as cli_main


def test_cli_list_show_grade(tmp_path, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="kbench")
    cli.add_kernels_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["kernels", "list", "--markdown"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == len(load_kernel_suite()) + 2 and "| gemm_fp8_rowwise |" in out
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
                        "--tasks", "softmax_fp32,rmsnorm_bf16", "--fixtures", "return_input,modify_input",
                        "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    rec = json.loads((tmp_path / "bench_gpu.json").read_text())
    assert rec["rehearsal"] is True and rec["complete"] is True and rec["device"]["kind"] == "cpu"
    assert sorted(r["task"] for r in rec["references"]) == ["rmsnorm_bf16", "softmax_fp32"]
    assert all(r["status"] == "ok" and r["score"] > 0 for r in rec["references"])
    assert sorted(v["task"] for v in rec["variants"]) == ["rmsnorm_bf16", "softmax_fp32"]
    assert all(v["status"] in ("incorrect", "cheat_rejected") for v in rec["variants"])
    assert [(f["task"], f["as_expected"]) for f in rec["fixtures"]] == [("modify_input", True), ("return_input", True)]
    assert sorted(k["task"] for k in rec["known_good"]) == ["rmsnorm_bf16", "softmax_fp32"]
    assert all(k["status"] == "skipped_no_gpu" for k in rec["known_good"])
    assert "REHEARSAL on the CPU" in p.stdout and "| softmax_fp32 (reference) | ok |" in p.stdout
    assert "do_bench difference" not in p.stdout  # no timing comparison is claimed without a GPU
