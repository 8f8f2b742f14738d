"""Measured tolerances and rooflines, task by task: the numbers in each task's [precision] section come back when
measured again, the gate passes the independent implementation and fails the feature-ignoring variant at every
case, and the largest graded shape keeps an H100 busy past launch overhead."""

import math

import pytest
import torch

from gpu import checks, precision, roofline
from gpu.loader import load_kernel_suite
from gpu.rand import Rand

TASKS = load_kernel_suite()


def _same(measured: float, recorded: float) -> bool:
    # the section keeps three significant digits; thread counts move a floor's last bits
    return math.isclose(measured, recorded, rel_tol=0.25, abs_tol=1e-12)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_measured_tolerance_reproduces_and_the_variant_fails(task):
    assert task.precision is not None, f"{task.id}: no [precision] section (python -m gpu.precision {task.id} --write)"
    got = precision.measure(task)
    assert got["variant"] == task.precision.variant
    for name, m in got["outputs"].items():
        rec = task.precision.outputs[name]
        assert _same(m["floor"], rec.floor), (name, m["floor"], rec.floor)
        assert _same(m["variant_error"], rec.variant_error), (name, m["variant_error"], rec.variant_error)
        if rec.exact:
            assert m["floor"] == 0.0, f"{name}: an exact output's alternate must agree everywhere"
        else:
            assert rec.tolerance == precision.tolerance_from(rec.floor, m["dtype"]), name
    # the variant must miss by a margin on some output, and the tolerance must pass the alternate
    margins = [m["variant_error"] / (task.precision.outputs[n].tolerance or 0.0)
               if not task.precision.outputs[n].exact else math.inf * (m["variant_error"] > 0)
               for n, m in got["outputs"].items()]
    assert max(margins) >= precision.VARIANT_MARGIN, margins


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gate_itself_passes_the_alternate_and_fails_the_variant(task):
    """Through checks.compare, the function the grader calls, on every measured case."""
    ref = precision.private_module(task, "reference")
    prec = precision.private_module(task, "precision")
    for shape, dist, seed in precision.cases(task):
        inputs = ref.make_inputs(shape, Rand(seed, dist))
        with torch.no_grad():
            want, alt, bad = (precision._tuple(f(**{k: v.clone() for k, v in inputs.items()}))
                              for f in (ref.reference, prec.alternate, prec.variant))
        assert all(checks.compare(task, n, a, w) is None for n, a, w in zip(task.outputs, alt, want)), (shape, dist)
        reasons = [checks.compare(task, n, b, w) for n, b, w in zip(task.outputs, bad, want)]
        assert any(reasons), f"{task.id}: the variant passes the gate on {shape} {dist} seed {seed}"


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
