# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_softcap_bf16 (gpu/precision.py): a tiled online-softmax attention
(every query row in step over tiles of keys, tanh written through exp, probabilities rounded to bf16 before the
product with V as a tensor-core kernel takes them), and plain causal attention without the cap."""

import torch

SOFTCAP = 50.0
TILE = 64  # keys per tile
VARIANT = "no soft-capping (plain causal softmax of the scaled scores)"


def _capped(s):
    # cap * tanh(s / cap) = cap * (1 - 2 / (exp(2 s / cap) + 1)), exp clamped where it would overflow
    e = torch.exp(torch.clamp(2.0 * s / SOFTCAP, max=60.0))
    return SOFTCAP * (1.0 - 2.0 / (e + 1.0))


def alternate(q, k, v):
    b, h, l, d = q.shape
    qf, kf, vf = q.float(), k.float(), v.float()
    rows = torch.arange(l)[:, None]
    run_max = torch.full((b, h, l), float("-inf"))
    run_sum = torch.zeros(b, h, l)
    acc = torch.zeros(b, h, l, d)
    for lo in range(0, l, TILE):
        hi = min(lo + TILE, l)
        s = _capped(torch.einsum("bhid,bhjd->bhij", qf, kf[:, :, lo:hi]) * d ** -0.5)
        s = s.masked_fill(torch.arange(lo, hi)[None, :] > rows, float("-inf"))
        new_max = torch.maximum(run_max, s.amax(dim=-1))
        safe = torch.where(torch.isfinite(new_max), new_max, torch.zeros_like(new_max))
        keep = torch.exp(run_max - safe)
        e = torch.exp(s - safe[..., None])
        run_sum = run_sum * keep + e.sum(dim=-1)  # the sum from the fp32 probabilities
        acc = acc * keep[..., None] + torch.einsum("bhij,bhjd->bhid", e.to(torch.bfloat16).float(), vf[:, :, lo:hi])
        run_max = new_max
    return (acc / run_sum[..., None]).to(q.dtype)


def variant(q, k, v):
    l, d = q.shape[2], q.shape[3]
    s = q.float() @ k.float().transpose(-1, -2) * d ** -0.5
    s = s.masked_fill(~torch.ones(l, l, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)
