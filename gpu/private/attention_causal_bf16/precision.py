# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_causal_bf16 (gpu/precision.py): an independent flash-style causal
attention (tiles of queries and keys, online softmax in base 2, probabilities rounded to bf16 before the product
with V, fp32 accumulators), and one that drops the causal mask."""

import math

import torch

BM, BN = 16, 16
LOG2E = 1.4426950408889634
VARIANT = "drops the causal mask (every query sees every key)"


def alternate(q, k, v):
    b, h, l, d = q.shape
    scale = d ** -0.5 * LOG2E
    qf, kf = q.float(), k.float()
    out = torch.empty_like(q)
    for i0 in range(0, l, BM):
        i1 = min(i0 + BM, l)
        rows = torch.arange(i0, i1)
        m = torch.full((b, h, i1 - i0), -math.inf)
        den = torch.zeros(b, h, i1 - i0)
        acc = torch.zeros(b, h, i1 - i0, d)
        for j0 in range(0, i1, BN):  # key tiles past the last row of this query tile are skipped
            j1 = min(j0 + BN, l)
            cols = torch.arange(j0, j1)
            s = (qf[:, :, i0:i1] @ kf[:, :, j0:j1].transpose(-1, -2)) * scale
            s = s.masked_fill(cols[None, :] > rows[:, None], -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1))
            alpha = torch.exp2(m - m_new)
            p = torch.exp2(s - m_new[..., None])
            den = den * alpha + p.sum(dim=-1)
            acc = acc * alpha[..., None] + p.to(torch.bfloat16).float() @ v[:, :, j0:j1].float()
            m = m_new
        out[:, :, i0:i1] = (acc / den[..., None]).to(q.dtype)
    return out


def variant(q, k, v):
    d = q.shape[-1]
    s = (q.float() @ k.float().transpose(-1, -2)) * d ** -0.5
    p = torch.softmax(s, dim=-1)
    return (p @ v.float()).to(q.dtype)
