# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for grpo_token_loss (gpu/precision.py): the surrogate by the sign of the advantage
with base-2 exponentials and a blocked mean, and one that leaves out the clipping (plain ratio * advantage)."""

import math

import torch

EPS = 0.2
LOG2E = 1.0 / math.log(2.0)
BLOCK = 64  # tokens per block partial sum
VARIANT = "no clipping of the ratio (loss = -r * A)"


def _blocked_mean(loss, mask):
    # fp32 partial sums of BLOCK tokens each, then a pairwise tree over the partials; the count as an integer
    flat = loss.reshape(-1)
    pad = (-flat.numel()) % BLOCK
    parts = torch.cat([flat, flat.new_zeros(pad)]).reshape(-1, BLOCK).sum(dim=1)
    while parts.numel() > 1:
        if parts.numel() % 2:
            parts = torch.cat([parts, parts.new_zeros(1)])
        parts = parts[0::2] + parts[1::2]
    count = int(mask.to(torch.int64).sum())
    return (parts[0] / count).reshape(())


def alternate(logp, old_logp, advantages, mask):
    ratio = torch.exp2((logp - old_logp) * LOG2E)
    a = advantages[:, None].expand_as(ratio)
    # for A >= 0 the smaller of r and clip(r) wins, for A < 0 the larger: min(r, 1 + eps) or max(r, 1 - eps)
    kept = torch.where(a >= 0, torch.clamp(ratio, max=1.0 + EPS), torch.clamp(ratio, min=1.0 - EPS))
    loss = torch.where(mask, -(kept * a), torch.zeros_like(ratio))
    return loss, _blocked_mean(loss, mask)


def variant(logp, old_logp, advantages, mask):
    ratio = torch.exp(logp - old_logp)
    loss = torch.where(mask, -(ratio * advantages[:, None]), torch.zeros_like(ratio))
    return loss, loss.sum() / mask.sum()
