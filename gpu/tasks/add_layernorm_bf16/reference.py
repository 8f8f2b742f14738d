# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""s = x + residual; residual_out = s; out = LayerNorm(s) * weight + bias (eps 1e-5), fp32 math, bf16 out."""

import torch

EPS = 1e-5


def make_inputs(shape, r):
    t, h = shape["T"], shape["H"]
    bf = torch.bfloat16
    return {"x": r.normal(t, h, dtype=bf), "residual": r.normal(t, h, dtype=bf, scale=2.0),
            "weight": (1.0 + 0.1 * r.normal(h)).to(bf), "bias": (0.1 * r.normal(h)).to(bf)}


def reference(x, residual, weight, bias):
    s = x.float() + residual.float()
    mu = s.mean(dim=-1, keepdim=True)
    var = (s - mu).pow(2).mean(dim=-1, keepdim=True)
    out = (s - mu) * torch.rsqrt(var + EPS) * weight.float() + bias.float()
    return out.to(torch.bfloat16), s.to(torch.bfloat16)
