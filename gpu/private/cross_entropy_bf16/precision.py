# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for cross_entropy_bf16 (gpu/precision.py): an independent single-pass kernel (an
online log-sum-exp over vocabulary chunks in base 2, then the target's logit subtracted), and one that leaves the
target out and returns the row's log-sum-exp."""

import math

import torch

CHUNK = 128
LOG2E = 1.4426950408889634
VARIANT = "ignores the target (returns the row's log-sum-exp, no target logit subtracted)"


def alternate(logits, target):
    t, v = logits.shape
    m = torch.full((t,), -math.inf)
    acc = torch.zeros(t)
    for c in range(0, v, CHUNK):
        blk = logits[:, c:c + CHUNK].float()
        m_new = torch.maximum(m, blk.amax(dim=-1))
        acc = acc * torch.exp2((m - m_new) * LOG2E) + torch.exp2((blk - m_new[:, None]) * LOG2E).sum(dim=-1)
        m = m_new
    lse = m + torch.log2(acc) / LOG2E
    picked = logits[torch.arange(t), target].float()
    return lse - picked


def variant(logits, target):
    x = logits.float()
    m = x.amax(dim=-1)
    return (x - m[:, None]).exp().sum(dim=-1).log() + m
