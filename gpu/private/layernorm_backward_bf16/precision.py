# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for layernorm_backward_bf16 (gpu/precision.py): a one-sweep backward with Welford
statistics and blocked column sums, and one that treats mean and rstd as constants."""

import torch

EPS = 1e-5
COLS = 64  # a row is read in chunks of this many columns
ROWS = 4  # dweight, dbias: fp32 partial sums per block of this many rows, then summed over blocks
VARIANT = "drops the gradient through the mean and the variance (dx = dy * weight * rstd)"


def _welford(xf):
    # chunked Welford merge: (count, mean, M2) per row, chunk by chunk
    t, h = xf.shape
    n = 0
    mean = torch.zeros(t)
    m2 = torch.zeros(t)
    for c in range(0, h, COLS):
        blk = xf[:, c:c + COLS]
        nb = blk.shape[1]
        mb = blk.mean(dim=1)
        m2b = (blk - mb[:, None]).pow(2).sum(dim=1)
        delta = mb - mean
        tot = n + nb
        mean = mean + delta * (nb / tot)
        m2 = m2 + m2b + delta * delta * (n * nb / tot)
        n = tot
    return mean, m2 / n


def alternate(x, weight, dy):
    xf, gy, w = x.float(), dy.float(), weight.float()
    t, h = xf.shape
    mean, var = _welford(xf)
    rstd = 1.0 / torch.sqrt(var + EPS)
    xhat = (xf - mean[:, None]) * rstd[:, None]
    g = gy * w
    sum_g = torch.zeros(t)
    sum_gx = torch.zeros(t)
    for c in range(0, h, COLS):
        sum_g += g[:, c:c + COLS].sum(dim=1)
        sum_gx += (g[:, c:c + COLS] * xhat[:, c:c + COLS]).sum(dim=1)
    dx = (g - (sum_g / h)[:, None] - xhat * (sum_gx / h)[:, None]) * rstd[:, None]
    dweight = torch.zeros(h)
    dbias = torch.zeros(h)
    for i in range(0, t, ROWS):
        dweight += (gy[i:i + ROWS] * xhat[i:i + ROWS]).sum(dim=0)
        dbias += gy[i:i + ROWS].sum(dim=0)
    return dx.to(torch.bfloat16), dweight.to(torch.bfloat16), dbias.to(torch.bfloat16)


def variant(x, weight, dy):
    xf, gy = x.float(), dy.float()
    mu = xf.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt((xf - mu).pow(2).mean(dim=-1, keepdim=True) + EPS)
    dx = rstd * gy * weight.float()
    return dx.to(torch.bfloat16), (gy * (xf - mu) * rstd).sum(dim=0).to(torch.bfloat16), \
        gy.sum(dim=0).to(torch.bfloat16)
