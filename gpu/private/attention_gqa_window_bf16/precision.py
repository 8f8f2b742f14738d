# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_gqa_window_bf16 (gpu/precision.py): an independent split-KV kernel
(the query heads of a group share their key/value head, read once for the group; the keys cut into splits of 128,
as flash-decoding cuts them: each split's scores exponentiated in base 2 against the split's own row max, rounded
to bf16 before the product with V in fp32; the splits' partial sums merged by rescaling to the global max), and
one that applies the window as a symmetric band, so queries also see up to W - 1 future keys."""

import math

import torch
import torch.nn.functional as F

SPLIT = 128  # keys per split
LOG2E = 1.4426950408889634
VARIANT = "applies the window as a symmetric band |i - j| < W, without the causal cut"


def alternate(q, k, v, window=None):
    b, hq, l, d = q.shape
    hk = k.shape[1]
    w = l if window is None else window
    n = -(-l // SPLIT)
    pad = n * SPLIT - l  # padded keys sit past every row: the causal cut removes them
    qf = q.float().reshape(b, hk, hq // hk, 1, l, d)  # query head h reads key/value head h // group
    kf = F.pad(k.float(), (0, 0, 0, pad)).reshape(b, hk, 1, n, SPLIT, d)
    vf = F.pad(v.float(), (0, 0, 0, pad)).reshape(b, hk, 1, n, SPLIT, d)
    s = (qf @ kf.transpose(-1, -2)) * (d ** -0.5 * LOG2E)  # (b, hk, group, split, row, key)
    cols = torch.arange(n * SPLIT).reshape(n, 1, SPLIT)
    rows = torch.arange(l).reshape(1, l, 1)
    s = s.masked_fill((cols > rows) | (cols <= rows - w), -math.inf)
    m = s.amax(dim=-1)  # each split's own max; -inf where a row's window misses the split
    seen = torch.isfinite(m)
    m0 = torch.where(seen, m, torch.zeros_like(m))
    p = torch.exp2(s - m0[..., None])
    part_den = p.sum(dim=-1)
    part_out = p.to(torch.bfloat16).float() @ vf
    wt = torch.where(seen, torch.exp2(m0 - m.amax(dim=3, keepdim=True)), torch.zeros_like(m))
    den = (wt * part_den).sum(dim=3)
    out = (wt[..., None] * part_out).sum(dim=3)
    return (out / den[..., None]).reshape(b, hq, l, d).to(q.dtype)


def variant(q, k, v, window=None):
    b, hq, l, d = q.shape
    group = hq // k.shape[1]
    w = l if window is None else window
    i = torch.arange(l)[:, None]
    j = torch.arange(l)[None, :]
    band = (i - j).abs() < w
    kk = k.float().repeat_interleave(group, dim=1)
    vv = v.float().repeat_interleave(group, dim=1)
    s = (q.float() @ kk.transpose(-1, -2)) * d ** -0.5
    p = torch.softmax(s.masked_fill(~band, -math.inf), dim=-1)
    return (p @ vv).to(q.dtype)
