# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for minp_filter_sample (gpu/precision.py): fp32 in blocks as a GPU kernel would
(block maxima, block sums of the kept weights, then a scan inside the block that holds the draw), and a sampler
that skips the min-p cut and draws from the whole distribution."""

import torch

VARIANT = "leaves out the min-p cut (samples the full distribution)"
BLOCK = 64


def _blocks(x):
    v = x.shape[1]
    pad = (-v) % BLOCK
    return torch.nn.functional.pad(x, (0, pad)).reshape(x.shape[0], -1, BLOCK)


def _draw(weights, u):
    blk = _blocks(weights)  # (B, nb, BLOCK); the padding weighs nothing
    sums = blk.sum(dim=2)
    before = torch.cumsum(sums, dim=1) - sums
    goal = u * sums.sum(dim=1)
    which = (before <= goal[:, None]).sum(dim=1) - 1
    rows = torch.arange(weights.shape[0])
    inner = before[rows, which][:, None] + torch.cumsum(blk[rows, which], dim=1)
    j = which * BLOCK + (inner <= goal[:, None]).sum(dim=1)
    return j.clamp(max=weights.shape[1] - 1).long()


def alternate(probs, min_p, u):
    top = _blocks(probs).amax(dim=2).amax(dim=1)
    cut = min_p * top
    kept = torch.where(probs >= cut[:, None], probs, torch.zeros_like(probs))
    return _draw(kept, u)


def variant(probs, min_p, u):
    return _draw(probs, u)
