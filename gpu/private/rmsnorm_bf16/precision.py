# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for rmsnorm_bf16 (gpu/precision.py): an independent correct RMSNorm, and one that
ignores the learned weight."""

import torch

EPS = 1e-6
VARIANT = "ignores the weight (plain x / rms)"


def alternate(x, weight):
    # as a kernel would: sum of squares in fp32 chunks of 64, the weight applied before the scale
    xf = x.float()
    t, h = xf.shape
    sq = torch.zeros(t, dtype=torch.float32)
    for c in range(0, h, 64):
        sq += (xf[:, c:c + 64] * xf[:, c:c + 64]).sum(dim=-1)
    inv = 1.0 / torch.sqrt(sq / h + EPS)
    return ((xf * weight.float()) * inv[:, None]).to(torch.bfloat16)


def variant(x, weight):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)).to(torch.bfloat16)
