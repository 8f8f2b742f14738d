# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Block-sparse attention: a boolean mask over (query block, key block) pairs of 64 x 64 tokens says which key
blocks each query block attends to. Every row of the block mask has exactly A blocks on. fp32 math, one
(batch, head) at a time."""

import torch

BLOCK = 64


def make_inputs(shape, r):
    b, h, nb, a, d = shape["B"], shape["H"], shape["NB"], shape["A"], shape["D"]
    bf = torch.bfloat16
    l = nb * BLOCK
    # A distinct key blocks per query block, chosen at random: the A smallest of nb uniform draws
    pick = r.uniform(b, h, nb, nb).argsort(dim=-1)[..., :a]
    block_mask = torch.zeros(b, h, nb, nb, dtype=torch.bool, device=pick.device).scatter_(-1, pick, True)
    return {"q": r.normal(b, h, l, d, dtype=bf), "k": r.normal(b, h, l, d, dtype=bf),
            "v": r.normal(b, h, l, d, dtype=bf), "block_mask": block_mask}


def reference(q, k, v, block_mask):
    b, h, l, d = q.shape
    out = torch.empty_like(q)
    for i in range(b):
        for j in range(h):
            mask = block_mask[i, j].repeat_interleave(BLOCK, dim=0).repeat_interleave(BLOCK, dim=1)  # (L, L)
            s = (q[i, j].float() @ k[i, j].float().T) * d ** -0.5
            s = s.masked_fill(~mask, float("-inf"))
            p = torch.exp(s - s.amax(dim=-1, keepdim=True))
            out[i, j] = ((p / p.sum(dim=-1, keepdim=True)) @ v[i, j].float()).to(q.dtype)
    return out
