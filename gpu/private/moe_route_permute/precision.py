# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for moe_route_permute (gpu/precision.py): an independent router (top-k by k
rounds of argmax, a softmax over the chosen logits, then a counting sort: per-expert counts, an exclusive scan,
each pair's slot from its rank among the earlier pairs of its expert), and one whose gate weights are the
softmax over all experts, not renormalised over the chosen k."""

import torch

VARIANT = "gate weights from a softmax over all experts, not renormalised over the chosen top-k"


def alternate(router_logits, x, top_k):
    t, e = router_logits.shape
    work = router_logits.clone()
    rows = torch.arange(t)
    picked, vals = [], []
    for _ in range(top_k):
        val, idx = work.max(dim=-1)
        picked.append(idx)
        vals.append(val)
        work[rows, idx] = -torch.inf
    experts = torch.stack(picked, dim=1).reshape(-1)  # pair p = token * K + rank
    vals = torch.stack(vals, dim=1)
    ex = torch.exp(vals - vals[:, :1])
    w = (ex / ex.sum(dim=-1, keepdim=True)).reshape(-1)
    hit = experts[:, None] == torch.arange(e)[None, :]
    counts = hit.sum(dim=0)
    offsets = torch.zeros(e + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(counts, dim=0)
    pairs = torch.arange(t * top_k)
    rank_in_expert = (hit.long().cumsum(dim=0) - 1)[pairs, experts]
    dest = offsets[experts] + rank_in_expert
    tokens = torch.empty(t * top_k, dtype=torch.int64)
    tokens[dest] = pairs // top_k
    weight = torch.empty(t * top_k, dtype=w.dtype)
    weight[dest] = w
    return x[tokens], tokens.to(torch.int32), weight, offsets.to(torch.int32)


def variant(router_logits, x, top_k):
    t, e = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    _, experts = router_logits.topk(top_k, dim=-1, sorted=True)
    w = probs.gather(1, experts).reshape(-1)
    flat = experts.reshape(-1)
    order = torch.argsort(flat, stable=True)
    tokens = torch.arange(t).repeat_interleave(top_k)[order]
    offsets = torch.zeros(e + 1, dtype=torch.int32)
    offsets[1:] = torch.bincount(flat, minlength=e).cumsum(0).to(torch.int32)
    return x[tokens], tokens.to(torch.int32), w[order], offsets
