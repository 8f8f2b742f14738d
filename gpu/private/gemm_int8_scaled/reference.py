# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""int8 x int8 GEMM: exact integer accumulation, then per-row (a_scale) and per-column (b_scale) fp32 scales,
bf16 out."""

import torch


def _int8(r, *size):
    # symmetric int8 values in [-127, 127]; the wide and outlier distributions saturate some of them
    return r.normal(*size, scale=40.0).round().clamp(-127, 127).to(torch.int8)


def make_inputs(shape, r):
    m, n, k = shape["M"], shape["N"], shape["K"]
    s = 1.0 / (40.0 * k ** 0.25)  # keeps the outputs near unit size whatever K is
    return {
        "a": _int8(r, m, k),
        "b": _int8(r, n, k),
        "a_scale": r.uniform(m, low=0.5, high=1.5) * s,
        "b_scale": r.uniform(n, low=0.5, high=1.5) * s,
    }


def reference(a, b, a_scale, b_scale):
    # fp64 holds every product and every partial sum exactly (|sum| < 2**31 < 2**53), so this is the int32 result
    acc = (a.double() @ b.double().t()).to(torch.int32)
    return (acc.float() * a_scale[:, None] * b_scale[None, :]).to(torch.bfloat16)


def eager(a, b, a_scale, b_scale):
    """What a user calls: torch's int8 matmul (int32 out), then the scales. The baseline for the audit flag."""
    try:
        acc = torch._int_mm(a, b.t())
    except Exception:
        return reference(a, b, a_scale, b_scale)
    return (acc.float() * a_scale[:, None] * b_scale[None, :]).to(torch.bfloat16)
