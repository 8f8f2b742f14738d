# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Top-k gating with softmax weights, then a stable grouping of (token, expert) pairs by expert."""

import torch


def make_inputs(shape, r):
    t, e, h = shape["T"], shape["E"], shape["H"]
    return {"router_logits": r.normal(t, e), "x": r.normal(t, h, dtype=torch.bfloat16), "top_k": shape["K"]}


def reference(router_logits, x, top_k):
    t, e = router_logits.shape
    vals, experts = router_logits.topk(top_k, dim=-1, sorted=True)
    w = torch.softmax(vals, dim=-1).reshape(-1)
    flat = experts.reshape(-1)  # pair p = token * K + rank: already ordered by token, then rank
    order = torch.argsort(flat, stable=True)
    tokens = torch.arange(t, device=x.device).repeat_interleave(top_k)[order]
    counts = torch.bincount(flat, minlength=e)
    offsets = torch.zeros(e + 1, dtype=torch.int32, device=x.device)
    offsets[1:] = counts.cumsum(0).to(torch.int32)
    return x[tokens], tokens.to(torch.int32), w[order], offsets
