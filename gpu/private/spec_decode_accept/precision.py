# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for spec_decode_accept (gpu/precision.py): one sequence at a time in fp32 as a
per-sequence kernel would (division-free acceptance test, a blocked running sum for the draw), and a verifier
that ignores the draft model's probabilities altogether (accepts while u < p_target(x), redraws a rejected
position from p_target instead of the residual)."""

import torch

VARIANT = "ignores p_draft: accepts while u < p_target(x) and redraws from p_target, not the residual"


def _draw(weights, u, block=64):
    """Inverse CDF by blocks: find the block whose running total passes u * total, then the token inside it."""
    total = weights.sum()
    goal = u * total
    pad = (-weights.numel()) % block  # the padding weighs nothing
    sums = torch.cat([weights, weights.new_zeros(pad)]).reshape(-1, block).sum(dim=1)  # one fp32 sum per block
    before = torch.cumsum(sums, 0) - sums
    blk = int((before <= goal).sum()) - 1
    start = blk * block
    inner = before[blk] + torch.cumsum(weights[start:start + block], 0)
    j = start + int((inner <= goal).sum())
    return min(j, weights.numel() - 1)


def _verify(draft_probs, target_probs, draft_tokens, u_accept, u_sample, use_draft):
    b, k, _ = draft_probs.shape
    n_out = torch.empty(b, dtype=torch.int64)
    tok_out = torch.empty(b, dtype=torch.int64)
    for s in range(b):
        n = 0
        while n < k:
            x = int(draft_tokens[s, n])
            p_d = draft_probs[s, n, x] if use_draft else torch.ones(())
            if not bool(u_accept[s, n] * p_d < target_probs[s, n, x]):
                break
            n += 1
        if n == k:
            w = target_probs[s, k]
        elif use_draft:
            w = torch.clamp(target_probs[s, n] - draft_probs[s, n], min=0.0)
        else:
            w = target_probs[s, n]
        n_out[s] = n
        tok_out[s] = _draw(w, u_sample[s])
    return n_out, tok_out


def alternate(draft_probs, target_probs, draft_tokens, u_accept, u_sample):
    return _verify(draft_probs, target_probs, draft_tokens, u_accept, u_sample, True)


def variant(draft_probs, target_probs, draft_tokens, u_accept, u_sample):
    return _verify(draft_probs, target_probs, draft_tokens, u_accept, u_sample, False)
