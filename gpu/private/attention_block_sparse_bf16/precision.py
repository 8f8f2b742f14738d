# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_block_sparse_bf16 (gpu/precision.py): for each query block, an
online softmax over the list of its active key blocks (the way a block-sparse kernel walks them), and dense
attention that ignores the block mask."""

import torch

BLOCK = 64
VARIANT = "ignores the block mask (dense attention over all keys)"


def alternate(q, k, v, block_mask):
    b, h, l, d = q.shape
    out = torch.empty_like(q)
    for i in range(b):
        for j in range(h):
            for qb in range(l // BLOCK):
                rows = slice(qb * BLOCK, (qb + 1) * BLOCK)
                qt = q[i, j, rows].float()
                m = torch.full((BLOCK,), float("-inf"))
                den = torch.zeros(BLOCK)
                acc = torch.zeros(BLOCK, d)
                for kb in block_mask[i, j, qb].nonzero().flatten().tolist():
                    cols = slice(kb * BLOCK, (kb + 1) * BLOCK)
                    s = qt @ k[i, j, cols].float().T * d ** -0.5
                    m_new = torch.maximum(m, s.amax(dim=-1))
                    e = torch.exp(s - m_new[:, None])
                    keep = torch.exp(m - m_new)
                    den = den * keep + e.sum(dim=-1)
                    acc = acc * keep[:, None] + e @ v[i, j, cols].float()
                    m = m_new
                out[i, j, rows] = (acc / den[:, None]).to(q.dtype)
    return out


def variant(q, k, v, block_mask):
    s = q.float() @ k.float().transpose(-1, -2) * q.shape[-1] ** -0.5
    return (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)
