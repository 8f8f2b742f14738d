# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for rmsnorm_backward_bf16 (gpu/precision.py): a blocked backward as a row-parallel
kernel computes it, and one that treats rstd as a constant (no gradient through the root mean square)."""

import torch

EPS = 1e-6
COLS = 64  # a row is reduced in chunks of this many columns
ROWS = 4  # dweight: fp32 partial sums per block of this many rows, then summed over blocks
VARIANT = "drops the gradient through rstd (dx = dy * weight * rstd)"


def alternate(x, weight, dy):
    xf, gy, w = x.float(), dy.float(), weight.float()
    t, h = xf.shape
    sq = torch.zeros(t)
    dot = torch.zeros(t)  # sum of dy * weight * x, before any scaling by rstd
    for c in range(0, h, COLS):
        xs, gs = xf[:, c:c + COLS], gy[:, c:c + COLS] * w[c:c + COLS]
        sq += (xs * xs).sum(dim=1)
        dot += (gs * xs).sum(dim=1)
    rstd = 1.0 / torch.sqrt(sq / h + EPS)
    # mean(g * xhat) = rstd * dot / h, so dx = rstd * g - x * rstd^3 * dot / h
    coef = rstd.pow(3) * dot / h
    dx = rstd[:, None] * (gy * w) - xf * coef[:, None]
    partials = [(gy[i:i + ROWS] * (xf[i:i + ROWS] * rstd[i:i + ROWS, None])).sum(dim=0) for i in range(0, t, ROWS)]
    dweight = torch.zeros(h)
    for p in partials:
        dweight += p
    return dx.to(torch.bfloat16), dweight.to(torch.bfloat16)


def variant(x, weight, dy):
    xf, gy = x.float(), dy.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)
    dx = rstd * gy * weight.float()
    dweight = (gy * xf * rstd).sum(dim=0)
    return dx.to(torch.bfloat16), dweight.to(torch.bfloat16)
