# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_block_sparse_bf16 (gpu/precision.py): every query block walks the list
of its active key blocks with an online softmax (the way a block-sparse kernel does, all query blocks in step),
its probabilities rounded to bf16 before the value product as a tensor-core kernel takes them; and dense attention
that ignores the block mask."""

import torch

BLOCK = 64
VARIANT = "ignores the block mask (dense attention over all keys)"


def alternate(q, k, v, block_mask):
    b, h, l, d = q.shape
    nb = l // BLOCK
    # the active key blocks of every query block, ascending: (B, H, NB, A); every row has the same count A
    active = block_mask.nonzero()[:, 3].view(b, h, nb, -1)
    qt = q.float().view(b, h, nb, BLOCK, d)
    kt, vt = k.float().view(b, h, nb, BLOCK, d), v.float().view(b, h, nb, BLOCK, d)
    m = torch.full((b, h, nb, BLOCK), float("-inf"))
    den = torch.zeros(b, h, nb, BLOCK)
    acc = torch.zeros(b, h, nb, BLOCK, d)
    for step in range(active.shape[-1]):
        idx = active[..., step, None, None].expand(b, h, nb, BLOCK, d)  # the step-th key block of each query block
        kb, vb = kt.gather(2, idx), vt.gather(2, idx)
        s = qt @ kb.transpose(-1, -2) * d ** -0.5  # (B, H, NB, BLOCK, BLOCK)
        m_new = torch.maximum(m, s.amax(dim=-1))
        e = torch.exp(s - m_new[..., None])
        keep = torch.exp(m - m_new)
        den = den * keep + e.sum(dim=-1)  # the sum from the fp32 probabilities
        acc = acc * keep[..., None] + e.to(torch.bfloat16).float() @ vb
        m = m_new
    return (acc / den[..., None]).view(b, h, l, d).to(q.dtype)


def variant(q, k, v, block_mask):
    s = q.float() @ k.float().transpose(-1, -2) * q.shape[-1] ** -0.5
    return (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)
