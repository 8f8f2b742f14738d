# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for quantize_fp8_per_token (gpu/precision.py): a chunked amax and a multiply by the
reciprocal scale, as a kernel would; and a kernel that uses one scale for the whole tensor."""

import torch

FP8_MAX = 448.0
MIN_AMAX = 1e-6
VARIANT = "one per-tensor scale (amax over the whole tensor) instead of one per token"
CHUNK = 32


def alternate(x):
    t, h = x.shape
    amax = torch.zeros(t, dtype=torch.float32)
    for c in range(0, h, CHUNK):  # running max over column chunks, in fp32
        amax = torch.maximum(amax, x[:, c:c + CHUNK].float().abs().amax(dim=-1))
    amax = torch.maximum(amax, torch.full_like(amax, MIN_AMAX))
    inv = FP8_MAX / amax  # multiply by 448 / amax rather than dividing by the scale
    q = torch.clamp(x.float() * inv[:, None], -FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, amax * (1.0 / FP8_MAX)


def variant(x):
    amax = x.abs().amax().float().clamp(min=MIN_AMAX)
    scale = (amax / FP8_MAX).expand(x.shape[0]).contiguous()
    q = (x.float() / scale[:, None]).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, scale
