# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""RMSNorm with eps 1e-6, computed in fp32, bf16 out."""

import torch

EPS = 1e-6


def make_inputs(shape, r):
    t, h = shape["T"], shape["H"]
    return {"x": r.normal(t, h, dtype=torch.bfloat16), "weight": (1.0 + 0.1 * r.normal(h)).to(torch.bfloat16)}


def reference(x, weight):
    xf = x.float()
    inv = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)
    return (xf * inv * weight.float()).to(torch.bfloat16)
