# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Top-k, then top-p (nucleus) filtering, then inverse-CDF sampling with a given uniform number per row."""

import torch

TOP_P = 0.8


def _filtered(logits, k):
    """Sorted top-k token ids and their final probabilities after the top-p cut, in fp64."""
    probs = torch.softmax(logits.double(), dim=-1)
    vals, idx = probs.topk(k, dim=-1, sorted=True)
    vals = vals / vals.sum(dim=-1, keepdim=True)
    before = vals.cumsum(dim=-1) - vals
    vals = torch.where(before < TOP_P, vals, torch.zeros_like(vals))
    return idx, vals / vals.sum(dim=-1, keepdim=True), before


def make_inputs(shape, r):
    b, v, k = shape["B"], shape["V"], shape["K"]
    logits = r.normal(b, v, scale=2.0)
    # Nudge rows whose top-p cut falls within 1e-4 of p: a fp32 kernel must not be able to land either side.
    for _ in range(50):
        _, _, before = _filtered(logits, k)
        bad = ((before - TOP_P).abs() < 1e-4).any(dim=-1)
        if not bool(bad.any()):
            break
        logits = torch.where(bad[:, None], logits * 1.03, logits)
    idx, vals, _ = _filtered(logits, k)
    # u is the middle of a kept token's interval, picked among tokens holding at least 1% of the mass.
    hi = vals.cumsum(dim=-1)
    lo = hi - vals
    eligible = vals >= 0.01
    pick = (r.uniform(b, k) * eligible).argmax(dim=-1)
    u = ((lo + hi) / 2).gather(1, pick[:, None]).squeeze(1)
    return {"logits": logits, "u": u.float(), "k": k}


def reference(logits, u, k):
    idx, vals, _ = _filtered(logits, k)
    cdf = vals.cumsum(dim=-1)
    j = torch.searchsorted(cdf, u.double()[:, None], right=True).clamp(max=k - 1)
    return idx.gather(1, j).squeeze(1)
