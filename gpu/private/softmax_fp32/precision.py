# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for softmax_fp32 (gpu/precision.py): an independent online softmax (a running
max and a rescaled running sum over column blocks of 64, then a normalising pass), and one that does the math
in bf16, the precision this task exists to keep."""

import torch

BLOCK = 64
VARIANT = "computes the softmax in bf16 instead of fp32"


def alternate(x):
    r, c = x.shape
    m = torch.full((r,), -torch.inf)
    total = torch.zeros(r)
    for c0 in range(0, c, BLOCK):
        blk = x[:, c0:c0 + BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1))
        total = total * torch.exp(m - m_new) + torch.exp(blk - m_new[:, None]).sum(dim=-1)
        m = m_new
    return torch.exp(x - m[:, None]) / total[:, None]


def variant(x):
    h = x.to(torch.bfloat16)
    e = torch.exp(h - h.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).float()
