# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Causal 3D convolution of a video VAE: kernel 3x3x3, stride 1; in time the input is padded on the past side only,
with two copies of the first frame, so output frame t sees input frames t-2..t and never a later one; in space it
is zero-padded by 1. fp32 arithmetic, bf16 in and out."""

import torch
import torch.nn.functional as F


def make_inputs(shape, r):
    b, ci, co, t, h, w = shape["B"], shape["CI"], shape["CO"], shape["T"], shape["H"], shape["W"]
    bf = torch.bfloat16
    return {
        "x": r.normal(b, ci, t, h, w, dtype=bf),
        "weight": r.normal(co, ci, 3, 3, 3, dtype=bf, scale=(27 * ci) ** -0.5),
        "bias": r.normal(co, dtype=bf, scale=0.1),
    }


def _causal_pad(x):
    first = x[:, :, :1]
    return torch.cat([first, first, x], dim=2)


def reference(x, weight, bias):
    xp = _causal_pad(x).float()
    return F.conv3d(xp, weight.float(), bias.float(), padding=(0, 1, 1)).to(torch.bfloat16)


def eager(x, weight, bias):
    """The library path a user would call: the baseline for the audit flag."""
    return F.conv3d(_causal_pad(x), weight, bias, padding=(0, 1, 1))
