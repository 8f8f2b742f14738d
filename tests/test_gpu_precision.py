"""Measured tolerances and rooflines, task by task: the numbers in each task's [precision] section come back when
measured again, the gate passes the independent implementation and fails the feature-ignoring variant at every
case, and the largest graded shape keeps an H100 busy past launch overhead."""

import math

import pytest
import torch

from gpu import checks, precision, roofline
from gpu.loader import load_kernel_suite

TASKS = load_kernel_suite()


def _same(measured: float, recorded: float) -> bool:
    # the section keeps three significant digits; thread counts move a floor's last bits
    return math.isclose(measured, recorded, rel_tol=0.25, abs_tol=1e-12)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_measured_tolerance_reproduces_and_the_gate_fails_the_variant(task):
    """The section's numbers come back when measured again, and the gate itself (checks.compare, what the grader
    calls) passes the alternate and fails the variant on every measured case."""
    assert task.precision is not None, f"{task.id}: no [precision] section (kbench kernels precision {task.id} --write)"
    missed = []

    def gate(case, want, alt, bad):
        assert all(checks.compare(task, n, a, w) is None for n, a, w in zip(task.outputs, alt, want)), case
        if not any(checks.compare(task, n, b, w) for n, b, w in zip(task.outputs, bad, want)):
            missed.append(case)

    got = precision.measure(task, on_case=gate)
    assert not missed, f"{task.id}: the variant passes the gate on {missed}"
    assert got["variant"] == task.precision.variant
    for name, m in got["outputs"].items():
        rec = task.precision.outputs[name]
        # The written floor is the largest error measured where it was written. torch's CPU kernels differ by CPU:
        # one with native bf16 dot products (AVX512-BF16) rounds a bf16 GEMM once and measures a lower floor, which
        # the written tolerance covers; a higher one would mean the tolerance is too tight here, and fails.
        assert _same(m["floor"], rec.floor) or m["floor"] < rec.floor, (name, m["floor"], rec.floor)
        assert _same(m["variant_error"], rec.variant_error), (name, m["variant_error"], rec.variant_error)
        if rec.exact:
            assert m["floor"] == 0.0, f"{name}: an exact output's alternate must agree everywhere"
        else:
            assert rec.tolerance == precision.tolerance_from(rec.floor, m["dtype"]), name
    # the variant must miss by a margin on some output
    margins = [(math.inf if m["variant_error"] > 0 else 0.0) if task.precision.outputs[n].exact
               else m["variant_error"] / task.precision.outputs[n].tolerance for n, m in got["outputs"].items()]
    assert max(margins) >= precision.VARIANT_MARGIN, margins


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_roofline_at_the_largest_graded_shape_is_above_250_us(task):
    shape, secs, bound = roofline.largest_graded(task)
    assert secs > roofline.ROOFLINE_FLOOR_S, f"{task.id}: {secs * 1e6:.0f} us ({bound}-bound) on {shape}"
    assert task.keywords, f"{task.id}: keywords (for the catalog) are empty"


def test_tolerance_rule_by_hand():
    assert precision.tolerance_from(0.0, torch.bfloat16) == 0.016
    assert precision.tolerance_from(1.23e-3, torch.float32) == 0.005  # 4 x 1.23e-3 = 4.92e-3, up to 2 digits
    assert precision.tolerance_from(2.5e-7, torch.float32) == 1e-5  # the fp32 minimum
    want = torch.tensor([1.0, -3.0, 0.0, 2.0])  # mean |want| = 1.5
    got = want + torch.tensor([0.0, 0.45, 0.15, 0.0])
    assert precision.error(got, want) == pytest.approx(max(0.45 / 4.5, 0.15 / 1.5))
    assert precision.error(torch.tensor([1, 2, 3, 4]), torch.tensor([1, 2, 0, 4])) == 0.25
    assert precision.error(torch.tensor([float("nan")]), torch.tensor([1.0])) == math.inf
