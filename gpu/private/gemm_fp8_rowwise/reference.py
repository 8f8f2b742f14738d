# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Dequantised fp8 GEMM: (a * a_scale) @ (b * b_scale).T, bf16 out."""

import torch


def make_inputs(shape, r):
    m, n, k = shape["M"], shape["N"], shape["K"]
    f8 = torch.float8_e4m3fn
    return {
        "a": r.normal(m, k).clamp(-448, 448).to(f8),
        "b": r.normal(n, k).clamp(-448, 448).to(f8),
        "a_scale": r.uniform(m, low=0.5, high=1.5) * k ** -0.25,
        "b_scale": r.uniform(n, low=0.5, high=1.5) * k ** -0.25,
    }


def reference(a, b, a_scale, b_scale):
    acc = a.float() @ b.float().t()
    return (acc * a_scale[:, None] * b_scale[None, :]).to(torch.bfloat16)


def eager(a, b, a_scale, b_scale):
    """What a user calls on a GPU that has fp8 tensor cores: the baseline for the audit flag."""
    if a.is_cuda:
        try:
            return torch._scaled_mm(a, b.t(), scale_a=a_scale[:, None], scale_b=b_scale[None, :],
                                    out_dtype=torch.bfloat16)
        except Exception:
            pass
    return reference(a, b, a_scale, b_scale)
