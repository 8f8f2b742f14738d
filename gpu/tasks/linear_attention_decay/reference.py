# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Retention-style linear attention: the exact quadratic form with a decay mask, per (batch, head)."""

import torch


def make_inputs(shape, r):
    b, h, l, d = shape["B"], shape["H"], shape["L"], shape["D"]
    bf = torch.bfloat16
    s = d ** -0.25  # q . k near unit size
    return {"q": r.normal(b, h, l, d, dtype=bf, scale=s), "k": r.normal(b, h, l, d, dtype=bf, scale=s),
            "v": r.normal(b, h, l, d, dtype=bf), "decay": 1 - torch.exp(r.uniform(h, low=-7.0, high=-2.5))}


def reference(q, k, v, decay):
    b, h, l, d = q.shape
    t = torch.arange(l, device=q.device, dtype=torch.float32)
    gap = t[:, None] - t[None, :]
    out = torch.empty_like(q)
    for j in range(h):
        mask = torch.where(gap >= 0, decay[j].float() ** gap.clamp(min=0), torch.zeros_like(gap))
        s = q[:, j].float() @ k[:, j].float().transpose(-1, -2) * mask
        out[:, j] = (s @ v[:, j].float()).to(q.dtype)
    return out
