# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for linear_attention_decay (gpu/precision.py): an independent chunked kernel
(quadratic with the decay mask inside a chunk of 16, every chunk at once; a D x D fp32 state carried across
chunks; the tensor-core operands rounded to bf16 as a chunked kernel rounds them), and one that builds the decay
mask from |t - s| without the causal cut, so future keys leak in.

Leaving the decay out altogether (gamma = 1) is not wrong enough to serve: with the slowest heads (gamma near
0.999) and the CPU shapes' short sequences it misses by only ~0.05, under two of the tolerances that bf16
tensor-core operands need."""

import torch
import torch.nn.functional as F

CHUNK = 16
VARIANT = "decay mask gamma^|t - s| without the causal cut (future keys leak in)"


def _bf(t):
    return t.to(torch.bfloat16).float()


def alternate(q, k, v, decay):
    b, h, l, d = q.shape
    n = -(-l // CHUNK)
    pad = n * CHUNK - l  # zero rows past the end: no key there adds to a state, and their outputs are dropped

    def chunks(t):
        return F.pad(t.float(), (0, 0, 0, pad)).reshape(b, h, n, CHUNK, d)

    qc, kc, vc = chunks(q), chunks(k), chunks(v)
    g = decay.float().reshape(h, 1)
    i = torch.arange(CHUNK, dtype=torch.float32)
    gap = i[:, None] - i[None, :]
    mask = torch.where(gap >= 0, g[..., None] ** gap.clamp(min=0), torch.zeros(h, CHUNK, CHUNK))  # (h, row, col)
    # inside each chunk: the quadratic form, scores rounded to bf16 before the product with V
    intra = _bf((qc @ kc.transpose(-1, -2)) * mask[:, None]) @ vc
    # what each chunk adds to the state: its keys decayed to the chunk's end, times its values
    upd = _bf(kc * (g ** (CHUNK - 1 - i))[:, None, :, None]).transpose(-1, -2) @ vc  # (b, h, chunk, d, d)
    # the sequential part: the state entering each chunk
    g_chunk = (decay.float() ** CHUNK).reshape(1, h, 1, 1)
    states = torch.empty(b, h, n, d, d)
    state = torch.zeros(b, h, d, d)
    for c in range(n):
        states[:, :, c] = state
        state = state * g_chunk + upd[:, :, c]
    inter = _bf(qc * (g ** (i + 1))[:, None, :, None]) @ _bf(states)
    return (intra + inter).reshape(b, h, n * CHUNK, d)[:, :, :l].to(q.dtype)


def variant(q, k, v, decay):
    b, h, l, d = q.shape
    t = torch.arange(l, dtype=torch.float32)
    dist = (t[:, None] - t[None, :]).abs()
    out = torch.empty_like(q)
    for j in range(h):
        s = (q[:, j].float() @ k[:, j].float().transpose(-1, -2)) * decay[j].float() ** dist
        out[:, j] = (s @ v[:, j].float()).to(q.dtype)
    return out
