# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""RMSNorm backward (eps 1e-6) with rstd recomputed: dx row by row, dweight summed over tokens; fp32 math, bf16
out."""

import torch

EPS = 1e-6


def make_inputs(shape, r):
    t, h = shape["T"], shape["H"]
    bf = torch.bfloat16
    return {"x": r.normal(t, h, dtype=bf), "weight": (1.0 + 0.1 * r.normal(h)).to(bf),
            "dy": r.normal(t, h, dtype=bf, scale=0.5)}


def reference(x, weight, dy):
    xf, gy = x.float(), dy.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)
    xhat = xf * rstd
    g = gy * weight.float()
    dx = rstd * (g - xhat * (g * xhat).mean(dim=-1, keepdim=True))
    dweight = (gy * xhat).sum(dim=0)
    return dx.to(torch.bfloat16), dweight.to(torch.bfloat16)


def eager(x, weight, dy):
    """The library path a user would call (autograd through F.rms_norm): the baseline for the audit flag."""
    with torch.enable_grad():
        xg = x.detach().requires_grad_(True)
        wg = weight.detach().requires_grad_(True)
        torch.nn.functional.rms_norm(xg, (x.shape[-1],), wg, EPS).backward(dy)
    return xg.grad, wg.grad
