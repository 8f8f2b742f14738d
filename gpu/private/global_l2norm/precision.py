# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for global_l2norm (gpu/precision.py): an independent two-level fp32 reduction
(a sum of squares per block of 256, then the block sums added, then the root), and one whose cross-block step
adds the blocks' norms instead of their sums of squares."""

import torch

BLOCK = 256
VARIANT = "combines the blocks by adding their norms instead of their sums of squares"


def _block_sums(x):
    n = x.numel()
    padded = torch.zeros((n + BLOCK - 1) // BLOCK * BLOCK, dtype=torch.float32)
    padded[:n] = x
    return padded.reshape(-1, BLOCK).square().sum(dim=-1)


def alternate(x):
    return torch.sqrt(_block_sums(x).sum())


def variant(x):
    return torch.sqrt(_block_sums(x)).sum()
