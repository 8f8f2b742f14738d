# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for rope_neox_bf16 (gpu/precision.py): an independent rotate-half kernel (full
width cos and signed sin rows, the rotation as one fused multiply-add over the whole head), and one that rotates
interleaved pairs (the GPT-J layout) instead of the two halves."""

import torch

VARIANT = "rotates interleaved pairs (2i, 2i + 1), the GPT-J layout, instead of the two halves"


def _rotate_half(x, cos, sin):
    xf = x.float()
    h = xf.shape[-1] // 2
    cos_full = torch.cat([cos, cos], dim=-1)[:, None, :]
    sin_signed = torch.cat([-sin, sin], dim=-1)[:, None, :]
    swapped = torch.cat([xf[..., h:], xf[..., :h]], dim=-1)
    return torch.addcmul(xf * cos_full, swapped, sin_signed).to(x.dtype)


def _rotate_pairs(x, cos, sin):
    xf = x.float()
    even, odd = xf[..., 0::2], xf[..., 1::2]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.stack([even * c - odd * s, odd * c + even * s], dim=-1).flatten(-2).to(x.dtype)


def alternate(q, k, cos, sin):
    return _rotate_half(q, cos, sin), _rotate_half(k, cos, sin)


def variant(q, k, cos, sin):
    return _rotate_pairs(q, cos, sin), _rotate_pairs(k, cos, sin)
