# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Dynamic per-token fp8 quantisation: scale = amax / 448 per row, q = fp8(x / scale)."""

import torch

FP8_MAX = 448.0
MIN_AMAX = 1e-6  # an all-zero row gets a tiny scale instead of a division by zero


def make_inputs(shape, r):
    return {"x": r.normal(shape["T"], shape["H"], dtype=torch.bfloat16)}


def reference(x):
    amax = x.abs().amax(dim=-1).float().clamp(min=MIN_AMAX)
    scale = amax / FP8_MAX
    q = (x.float() / scale[:, None]).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, scale
