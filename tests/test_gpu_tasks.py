"""The kernel task format: the suite, the loader's errors, the work formulas and the correctness checks."""

import shutil
from pathlib import Path

import pytest
import torch

from gpu import checks
from gpu.formulas import FormulaError, evaluate, names_in
from gpu.loader import PRIVATE_DIR, TASKS_DIR, agent_files, load_kernel_suite, load_kernel_task, render_prompt
from gpu.models import OutputPrecision, Precision
from gpu.rand import Rand
from task_defs.canary import CANARY
from task_defs.errors import TaskFileError

FAMILIES = {"gemm", "softmax", "norm", "rope", "attention", "sampling", "moe", "ssm", "kv_cache", "optimizer",
            "reduction", "quantization", "training", "sparse_attention", "diffusion", "speculative", "conv"}


def test_suite_has_every_family_and_at_least_48_tasks():
    tasks = load_kernel_suite()
    assert len(tasks) >= 48
    assert {t.family for t in tasks} == FAMILIES and len(FAMILIES) >= 16
    ids = {t.id for t in tasks}
    # KBench's families we carry: quantised GEMM, MoE, paged KV, norm/RoPE, sampling, linear attention/SSM, backward
    # passes and losses, sparse and latent attention, diffusion steps, speculative decoding, video convolutions
    assert {"gemm_bf16", "gemm_fp8_rowwise", "gemm_w4a16_grouped", "add_layernorm_bf16", "attention_causal_bf16",
            "attention_mla_decode_bf16", "attention_block_sparse_bf16", "paged_kv_append", "adamw_step",
            "global_l2norm", "moe_grouped_gemm_bf16", "spec_decode_accept", "causal_conv3d_bf16",
            "gated_delta_rule_chunk"} <= ids
    assert {t.metric for t in tasks} == {"tflops", "gbps"}
    assert all(t.precision is not None for t in tasks)


@pytest.mark.parametrize("task", load_kernel_suite(), ids=lambda t: t.id)
def test_task_is_consistent(task):
    # the grader's private copy is the same reference the agent reads, kept where no agent folder gets it
    assert (PRIVATE_DIR / task.id / "reference.py").read_bytes() == (task.folder / "reference.py").read_bytes()
    files = agent_files(task)
    assert set(files) == {"instruction.md", "reference.py", task.stub}
    assert all(PRIVATE_DIR not in p.parents and p.name != "task.toml" for p in files.values())
    # every input the task names comes out of make_inputs, for CPU and GPU shapes alike (built on CPU here)
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"ref_{task.id}", task.folder / "reference.py")
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    made = ref.make_inputs(dict(task.shapes.cpu_public[0]), Rand(1, "normal"))
    assert set(made) == set(task.inputs)
    outs = ref.reference(**made)
    outs = outs if isinstance(outs, tuple) else (outs,)
    assert len(outs) == len(task.outputs)
    assert all(torch.isfinite(o.double()).all() for o in outs)
    # work formulas are positive for every shape; a prompt names the signature and the public shapes
    for shape in task.shapes.public + task.shapes.hidden:
        assert task.work(shape) > 0
    prompt = render_prompt(task)
    assert f"{task.entry}({', '.join(task.kernel_args())})" in prompt
    assert str(task.shapes.hidden[0]) not in prompt  # hidden shapes stay hidden


def test_large_shapes_outgrow_l2_caches():
    """gbps tasks on a GPU move far more than any L2 (50-130 MB), so the L2 flush measures memory, not cache."""
    for t in load_kernel_suite():
        if t.metric == "gbps" and t.bytes:
            for s in t.shapes.public + t.shapes.hidden:
                assert evaluate(t.bytes, s) >= 256e6, (t.id, s)


def _copy_task(tmp_path: Path, task_id: str = "softmax_fp32") -> tuple[Path, Path]:
    tasks, private = tmp_path / "tasks", tmp_path / "private"
    shutil.copytree(TASKS_DIR / task_id, tasks / task_id)
    shutil.copytree(PRIVATE_DIR / task_id, private / task_id)
    return tasks / task_id, private


BROKEN = [
    ('metric = "gbps"', 'metric = "speed"', "field 'metric'"),
    ('bytes = "8*R*C"', 'bytes = "8*R*Q"', "'Q' is not a shape parameter"),
    ('bytes = "8*R*C"', 'flops = "8*R*C"', "metric 'gbps' needs the bytes formula"),
    ('cpu_hidden = [{R = 5, C = 257}]', 'cpu_hidden = [{R = 5}]', "cpu_hidden[0] has parameters"),
    ('cpu_hidden = [{R = 5, C = 257}]', 'cpu_hidden = [{R = 5, C = 0}]', "must be positive"),
    ('forbidden_ops = [', 'forbidden_ops = ["softmax", ', "aten operator names"),
    ('outputs = ["out"]', 'outputs = ["x"]', "not listed in inplace"),
    ('id = "softmax_fp32"', 'id = "other"', "field 'id'"),
    ('dtype = "fp32"', 'dtype = "fp32"\nsurprise = 1', "field 'surprise'"),
    ('bytes = "8*R*C"', 'bytes = "8*R*C; import os"', "field 'bytes'"),
]


@pytest.mark.parametrize("old,new,message", BROKEN, ids=[b[2][:24] for b in BROKEN])
def test_broken_task_toml_names_file_and_field(tmp_path, old, new, message):
    folder, private = _copy_task(tmp_path)
    toml = folder / "task.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new))
    with pytest.raises(TaskFileError) as err:
        load_kernel_task(folder, private)
    assert str(toml) in str(err.value)
    assert message in str(err.value)


def test_missing_private_reference_stub_or_canary(tmp_path):
    folder, private = _copy_task(tmp_path)
    (private / "softmax_fp32" / "reference.py").unlink()
    with pytest.raises(TaskFileError, match="private reference"):
        load_kernel_task(folder, private)
    folder, private = _copy_task(tmp_path / "b")
    (folder / "kernel.py").unlink()
    with pytest.raises(TaskFileError, match="missing kernel.py"):
        load_kernel_task(folder, private)
    folder, private = _copy_task(tmp_path / "c")
    (folder / "instruction.md").write_text("no canary here\n")
    with pytest.raises(TaskFileError, match="canary"):
        load_kernel_task(folder, private)
    folder, private = _copy_task(tmp_path / "d")
    (folder / "task.toml").write_text(f"# {CANARY}\nid = [\n")
    with pytest.raises(TaskFileError, match="not valid TOML"):
        load_kernel_task(folder, private)


def test_formulas_are_arithmetic_only():
    assert evaluate("2*M*N*K", {"M": 2, "N": 3, "K": 4}) == 48
    assert evaluate("4*B*H*(W*L - W*(W - 1)/2)", {"B": 1, "H": 1, "W": 2, "L": 3}) == 4 * (6 - 1)
    assert evaluate("max(A, 3) + ceil(A / 2)", {"A": 5}) == 8
    assert names_in("2*M*max(N, K)") == {"M", "N", "K"}
    for bad in ("__import__('os')", "M.real", "[M]", "M if M else 1", "open('x')"):
        with pytest.raises(FormulaError):
            evaluate(bad, {"M": 1})
    with pytest.raises(FormulaError, match="division by zero"):
        evaluate("M / (M - 1)", {"M": 1})


class _T:
    precision = Precision(variant="a test", outputs={
        "o": OutputPrecision(floor=2e-5, tolerance=1e-4, variant_error=1.0),
        "i": OutputPrecision(floor=0.0, exact=True, variant_error=1.0)})


def test_compare_by_measured_tolerance_nan_and_exact():
    t = _T()
    want = torch.tensor([1.0, -3.0, 0.0, 2.0])  # mean |want| 1.5: an element may be off by 1e-4 x (|want| + 1.5)
    assert checks.compare(t, "o", want + torch.tensor([2.4e-4, 4.4e-4, 1.4e-4, 0.0]), want) is None
    reason = checks.compare(t, "o", want + torch.tensor([0.0, 0.0, 1.6e-4, 0.0]), want)
    assert "1 of 4 elements off by more than the measured tolerance 0.0001" in reason
    got = want.clone()
    got[2] = float("nan")
    assert "NaN elements where the reference has a number" in checks.compare(t, "o", got, want)
    both = torch.tensor([1.0, float("nan")])
    assert checks.compare(t, "o", both.clone(), both) is None  # NaN where the reference has NaN is fine
    ints = torch.arange(5)
    assert checks.compare(t, "i", ints.clone(), ints) is None
    off = ints.clone()
    off[3] += 1
    assert "exact match needed" in checks.compare(t, "i", off, ints)
    assert "want (4,)" in checks.compare(t, "o", torch.ones(5), want)
    assert "float64" in checks.compare(t, "o", want.double(), want)


def test_a_task_without_measured_precision_is_refused_by_name(tmp_path):
    folder, private = _copy_task(tmp_path)
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().split("[precision]")[0])
    with pytest.raises(TaskFileError, match="precision.*kbench kernels precision softmax_fp32 --write") as err:
        load_kernel_task(folder, private)
    assert str(toml) in str(err.value)
    assert load_kernel_task(folder, private, measured=False).precision is None  # what the precision tool loads


def test_poison_marks_every_element():
    assert torch.isnan(checks.poison_(torch.zeros(3, dtype=torch.bfloat16))).all()
    assert (checks.poison_(torch.zeros(3, dtype=torch.int32)) == torch.iinfo(torch.int32).min).all()
    assert checks.poison_(torch.zeros((), dtype=torch.float32)).isnan()


def test_rand_is_seeded_and_distributions_differ():
    a, b = Rand(7, "normal"), Rand(7, "normal")
    assert torch.equal(a.normal(100), b.normal(100))
    assert Rand(7, "wide").normal(1000).std() > 3 * Rand(7, "normal").normal(1000).std()
    assert not torch.equal(Rand(7, "normal").normal(100), Rand(8, "normal").normal(100))
