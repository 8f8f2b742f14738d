# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Grouped GEMM: the rows of expert e (offsets[e] to offsets[e+1]) times w[e].T, fp32 math, bf16 out."""

import torch


def make_inputs(shape, r):
    rows, e, h, n = shape["R"], shape["E"], shape["H"], shape["N"]
    # uneven expert loads: each row picks an expert from a softmax of random logits (peakier when 'wide')
    cdf = torch.softmax(r.normal(e), dim=0).cumsum(dim=0)
    expert = torch.searchsorted(cdf, r.uniform(rows)).clamp(max=e - 1)
    offsets = torch.zeros(e + 1, dtype=torch.int32, device=cdf.device)
    offsets[1:] = torch.bincount(expert, minlength=e).cumsum(dim=0).to(torch.int32)
    return {
        "x": r.normal(rows, h, dtype=torch.bfloat16),
        "w": r.normal(e, n, h, dtype=torch.bfloat16, scale=h ** -0.5),
        "offsets": offsets,
    }


def reference(x, w, offsets):
    out = torch.empty(x.shape[0], w.shape[1], dtype=torch.bfloat16, device=x.device)
    bounds = offsets.tolist()
    for e in range(w.shape[0]):
        lo, hi = bounds[e], bounds[e + 1]
        if hi > lo:
            out[lo:hi] = (x[lo:hi].float() @ w[e].float().t()).to(torch.bfloat16)
    return out


def eager(x, w, offsets):
    """What a user calls without a grouped kernel: one bf16 matmul per expert (the audit baseline)."""
    out = torch.empty(x.shape[0], w.shape[1], dtype=torch.bfloat16, device=x.device)
    bounds = offsets.tolist()
    for e in range(w.shape[0]):
        lo, hi = bounds[e], bounds[e + 1]
        if hi > lo:
            out[lo:hi] = x[lo:hi] @ w[e].t()
    return out
