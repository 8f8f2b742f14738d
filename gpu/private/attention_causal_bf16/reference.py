# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Causal softmax attention, fp32 math, one batch entry at a time (the score matrix is L x L)."""

import torch


def make_inputs(shape, r):
    b, h, l, d = shape["B"], shape["H"], shape["L"], shape["D"]
    bf = torch.bfloat16
    return {"q": r.normal(b, h, l, d, dtype=bf), "k": r.normal(b, h, l, d, dtype=bf), "v": r.normal(b, h, l, d, dtype=bf)}


def reference(q, k, v):
    b, h, l, d = q.shape
    out = torch.empty_like(q)
    mask = torch.ones(l, l, dtype=torch.bool, device=q.device).tril()
    for i in range(b):
        s = (q[i].float() @ k[i].float().transpose(-1, -2)) * d ** -0.5
        s = s.masked_fill(~mask, float("-inf"))
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        p = p / p.sum(dim=-1, keepdim=True)
        out[i] = (p @ v[i].float()).to(q.dtype)
    return out


def eager(q, k, v):
    """The library path a user would call: the baseline for the audit flag."""
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
