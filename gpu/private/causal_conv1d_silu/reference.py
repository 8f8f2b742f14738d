# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Depthwise causal conv1d over time, width 4, plus bias, then SiLU, as in front of a Mamba block's scan: every
channel has its own four taps, the last of which sits on the current step; steps before t = 0 are zeros. fp32
arithmetic, bf16 in and out."""

import torch
import torch.nn.functional as F

WIDTH = 4


def make_inputs(shape, r):
    b, d, n_t = shape["B"], shape["D"], shape["L"]
    bf = torch.bfloat16
    return {
        "x": r.normal(b, d, n_t, dtype=bf),
        "weight": r.normal(d, WIDTH, dtype=bf, scale=0.5),
        "bias": r.normal(d, dtype=bf, scale=0.2),
    }


def reference(x, weight, bias):
    n_t = x.shape[2]
    xp = F.pad(x.float(), (WIDTH - 1, 0))  # zeros before the first step
    w = weight.float()
    acc = bias.float()[None, :, None].expand(x.shape[0], -1, n_t)
    for k in range(WIDTH):  # tap k reads step t - (WIDTH - 1) + k
        acc = acc + w[None, :, k, None] * xp[:, :, k:k + n_t]
    return F.silu(acc).to(torch.bfloat16)


def eager(x, weight, bias):
    """The library path a user would call: the baseline for the audit flag."""
    n_t = x.shape[2]
    y = F.conv1d(x, weight[:, None, :], bias, padding=WIDTH - 1, groups=x.shape[1])[:, :, :n_t]
    return F.silu(y)
