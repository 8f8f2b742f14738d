# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for cross_entropy_backward_bf16 (gpu/precision.py): an online-softmax backward over
vocabulary chunks, and one that averages over every row, the ignored ones included."""

import math

import torch

IGNORE = -100
CHUNK = 256
LOG2E = 1.0 / math.log(2.0)
VARIANT = "divides by all T rows instead of the count of non-ignored targets"


def alternate(logits, target, grad_loss):
    # as a kernel would: one sweep keeping a running max and a rescaled running sum per row (base-2 exponentials),
    # then a second sweep over the same chunks writing exp2((x - max) * log2e) / sum, the target's one subtracted
    x = logits.float()
    t, v = x.shape
    run_max = torch.full((t,), -math.inf)
    run_sum = torch.zeros(t)
    for c in range(0, v, CHUNK):
        blk = x[:, c:c + CHUNK]
        new_max = torch.maximum(run_max, blk.amax(dim=1))
        run_sum = run_sum * torch.exp2((run_max - new_max) * LOG2E) + \
            torch.exp2((blk - new_max[:, None]) * LOG2E).sum(dim=1)
        run_max = new_max
    valid = target != IGNORE
    count = int(valid.to(torch.int32).sum())
    scale = torch.where(valid, grad_loss.float() / float(count), torch.zeros(()))  # per row: 0 on ignored rows
    inv = scale / run_sum
    out = torch.empty(t, v, dtype=torch.bfloat16)
    cols = torch.arange(v)
    for c in range(0, v, CHUNK):
        blk = x[:, c:c + CHUNK]
        g = torch.exp2((blk - run_max[:, None]) * LOG2E) * inv[:, None]
        hit = (cols[c:c + CHUNK][None, :] == target[:, None])
        g = torch.where(hit, g - scale[:, None], g)
        out[:, c:c + CHUNK] = g.to(torch.bfloat16)
    return out


def variant(logits, target, grad_loss):
    x = logits.float()
    valid = target != IGNORE
    p = torch.softmax(x, dim=-1)
    rows = torch.nonzero(valid).squeeze(1)
    p[rows, target[rows]] -= 1.0
    p = p * (grad_loss / x.shape[0])
    p[~valid] = 0.0
    return p.to(torch.bfloat16)
