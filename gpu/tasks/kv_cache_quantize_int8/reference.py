# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Symmetric int8 quantisation of k and v per (token, head): scale = fp32(amax / 127), q = round_half_even(
fp32(x / scale)). Both divisions are done in fp64 and rounded to fp32, which gives the correctly rounded fp32
quotient on every device (a library may turn a division by a constant into a multiply by its reciprocal)."""

import torch

QMAX = 127.0
MIN_AMAX = 1e-6  # an all-zero row gets a tiny scale instead of a division by zero


def make_inputs(shape, r):
    t, h, d = shape["T"], shape["H"], shape["D"]
    return {"k": r.normal(t, h, d, dtype=torch.bfloat16), "v": r.normal(t, h, d, dtype=torch.bfloat16)}


def _quantize(x):
    amax = x.abs().amax(dim=-1).float().clamp(min=MIN_AMAX)
    scale = (amax.double() / QMAX).float()
    y = (x.double() / scale.double()[..., None]).float()  # the fp32 quotient; its .5 ties are real ties
    q = torch.round(y).clamp(-QMAX, QMAX).to(torch.int8)  # torch.round rounds half to even
    return q, scale


def reference(k, v):
    return (*_quantize(k), *_quantize(v))
