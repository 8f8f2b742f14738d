# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Rotate-half rotary embedding applied to q and k."""

import torch


def make_inputs(shape, r):
    t, hq, hk, d = shape["T"], shape["HQ"], shape["HK"], shape["D"]
    pos = r.randint(0, 131072, t).float()
    inv_freq = 10000.0 ** (-torch.arange(0, d // 2, device=pos.device, dtype=torch.float32) * 2 / d)
    ang = pos[:, None] * inv_freq[None, :]
    bf = torch.bfloat16
    return {"q": r.normal(t, hq, d, dtype=bf), "k": r.normal(t, hk, d, dtype=bf),
            "cos": torch.cos(ang), "sin": torch.sin(ang)}


def _rotate(x, cos, sin):
    h = x.shape[-1] // 2
    xf = x.float()
    x1, x2 = xf[..., :h], xf[..., h:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)


def reference(q, k, cos, sin):
    return _rotate(q, cos, sin), _rotate(k, cos, sin)
