# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for add_layernorm_bf16 (gpu/precision.py): an independent fused add + LayerNorm
with the statistics merged chunk by chunk (Welford), and one that normalises x without the residual."""

import torch

EPS = 1e-5
CHUNK = 32
VARIANT = "normalises x alone, leaving the residual out of the LayerNorm input"


def alternate(x, residual, weight, bias):
    # as a kernel would: one pass over column chunks, each chunk's mean and M2 merged into running ones
    s = x.float() + residual.float()
    t, h = s.shape
    count = torch.zeros(t, 1)
    mean = torch.zeros(t, 1)
    m2 = torch.zeros(t, 1)
    for c in range(0, h, CHUNK):
        blk = s[:, c:c + CHUNK]
        nb = blk.shape[1]
        mb = blk.mean(dim=-1, keepdim=True)
        m2b = (blk - mb).square().sum(dim=-1, keepdim=True)
        delta = mb - mean
        total = count + nb
        mean = mean + delta * (nb / total)
        m2 = m2 + m2b + delta * delta * (count * nb / total)
        count = total
    rstd = torch.rsqrt(m2 / h + EPS)
    out = torch.addcmul(bias.float(), (s - mean) * rstd, weight.float())
    return out.to(torch.bfloat16), s.to(torch.bfloat16)


def variant(x, residual, weight, bias):
    xf = x.float()
    mu = xf.mean(dim=-1, keepdim=True)
    var = (xf - mu).pow(2).mean(dim=-1, keepdim=True)
    out = (xf - mu) * torch.rsqrt(var + EPS) * weight.float() + bias.float()
    return out.to(torch.bfloat16), (xf + residual.float()).to(torch.bfloat16)
