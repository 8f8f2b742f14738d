# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_causal_bf16 (gpu/precision.py): an independent split-KV attention
(the keys cut into splits of 128, as flash-decoding cuts them: each split's scores exponentiated in base 2 against
the split's own row max, rounded to bf16 before the product with V in fp32; the splits' partial sums then merged
by rescaling to the global max), and one that drops the causal mask."""

import math

import torch
import torch.nn.functional as F

SPLIT = 128  # keys per split
LOG2E = 1.4426950408889634
VARIANT = "drops the causal mask (every query sees every key)"


def alternate(q, k, v):
    b, h, l, d = q.shape
    n = -(-l // SPLIT)
    pad = n * SPLIT - l  # padded keys sit past every row: the causal mask removes them
    kf = F.pad(k.float(), (0, 0, 0, pad)).reshape(b, h, n, SPLIT, d)
    vf = F.pad(v.float(), (0, 0, 0, pad)).reshape(b, h, n, SPLIT, d)
    s = (q.float()[:, :, None] @ kf.transpose(-1, -2)) * (d ** -0.5 * LOG2E)  # (b, h, split, row, key)
    cols = torch.arange(n * SPLIT).reshape(n, 1, SPLIT)
    rows = torch.arange(l).reshape(1, l, 1)
    s = s.masked_fill(cols > rows, -math.inf)
    m = s.amax(dim=-1)  # each split's own max; -inf where a row sees none of the split's keys
    seen = torch.isfinite(m)
    m0 = torch.where(seen, m, torch.zeros_like(m))
    p = torch.exp2(s - m0[..., None])
    part_den = p.sum(dim=-1)
    part_out = p.to(torch.bfloat16).float() @ vf
    w = torch.where(seen, torch.exp2(m0 - m.amax(dim=2, keepdim=True)), torch.zeros_like(m))
    den = (w * part_den).sum(dim=2)
    out = (w[..., None] * part_out).sum(dim=2)
    return (out / den[..., None]).to(q.dtype)


def variant(q, k, v):
    d = q.shape[-1]
    s = (q.float() @ k.float().transpose(-1, -2)) * d ** -0.5
    p = torch.softmax(s, dim=-1)
    return (p @ v.float()).to(q.dtype)
