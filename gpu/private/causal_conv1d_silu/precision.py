# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for causal_conv1d_silu (gpu/precision.py): a sliding window walked over time in
chunks, newest tap first, with SiLU as z / (1 + exp(-z)), and a kernel that centres the window (one step back, two
ahead) instead of keeping it causal."""

import torch

VARIANT = "centres the window (steps t-1..t+2) instead of the causal t-3..t"
CHUNK = 16


def _conv(x, weight, bias, back):
    """Tap k reads step t - back + k; steps outside 0..L-1 are zeros."""
    b, d, n_t = x.shape
    w = weight.float()
    bs = bias.float()[None, :, None]
    xf = x.float()
    out = torch.empty_like(x)
    for s in range(0, n_t, CHUNK):
        e = min(s + CHUNK, n_t)
        acc = torch.zeros(b, d, e - s)
        for k in reversed(range(4)):
            lo, hi = s - back + k, e - back + k
            seg = torch.zeros(b, d, e - s)
            a, z = max(lo, 0), min(hi, n_t)
            if a < z:
                seg[:, :, a - lo:z - lo] = xf[:, :, a:z]
            acc = acc + w[None, :, k, None] * seg
        acc = acc + bs
        out[:, :, s:e] = (acc / (1.0 + torch.exp(-acc))).to(torch.bfloat16)
    return out


def alternate(x, weight, bias):
    return _conv(x, weight, bias, back=3)


def variant(x, weight, bias):
    return _conv(x, weight, bias, back=1)
