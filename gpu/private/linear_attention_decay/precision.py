# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for linear_attention_decay (gpu/precision.py): an independent chunked kernel
(quadratic with the decay mask inside a chunk of 16, a D x D fp32 state carried across chunks, the tensor-core
operands rounded to bf16 as a chunked kernel rounds them), and one that builds the decay mask from |t - s|
without the causal cut, so future keys leak in.

Leaving the decay out altogether (gamma = 1) is not wrong enough to serve: with the slowest heads (gamma near
0.999) and the CPU shapes' short sequences it misses by only ~0.05, under two of the tolerances that bf16
tensor-core operands need."""

import torch

CHUNK = 16
VARIANT = "decay mask gamma^|t - s| without the causal cut (future keys leak in)"


def _bf(t):
    return t.to(torch.bfloat16).float()


def alternate(q, k, v, decay):
    b, h, l, d = q.shape
    out = torch.empty_like(q)
    for j in range(h):
        g = decay[j].float()
        state = torch.zeros(b, d, d)
        for c0 in range(0, l, CHUNK):
            c1 = min(c0 + CHUNK, l)
            n = c1 - c0
            qc, kc, vc = q[:, j, c0:c1].float(), k[:, j, c0:c1].float(), v[:, j, c0:c1].float()
            i = torch.arange(n, dtype=torch.float32)
            gap = i[:, None] - i[None, :]
            mask = torch.where(gap >= 0, g ** gap.clamp(min=0), torch.zeros_like(gap))
            scores = (qc @ kc.transpose(-1, -2)) * mask
            intra = _bf(scores) @ vc
            inter = _bf(qc * (g ** (i + 1))[:, None]) @ _bf(state)
            out[:, j, c0:c1] = (intra + inter).to(q.dtype)
            state = state * g ** n + _bf(kc * (g ** (n - 1 - i))[:, None]).transpose(-1, -2) @ vc
    return out


def variant(q, k, v, decay):
    b, h, l, d = q.shape
    t = torch.arange(l, dtype=torch.float32)
    dist = (t[:, None] - t[None, :]).abs()
    out = torch.empty_like(q)
    for j in range(h):
        s = (q[:, j].float() @ k[:, j].float().transpose(-1, -2)) * decay[j].float() ** dist
        out[:, j] = (s @ v[:, j].float()).to(q.dtype)
    return out
