# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for topk_topp_sampling (gpu/precision.py): an independent fp32 sampler (top-k by
k rounds of argmax, a softmax over the k logits alone, the nucleus cut and the inverse CDF by counting), and one
that skips the top-k selection: it runs the nucleus cut and the inverse CDF over the first k vocabulary entries
as if they were the k most probable.

Variants that keep the selection (no top-p cut, the cut off by one, the CDF walked in vocabulary order or from
the least probable end, u ignored) return the same tokens as the reference on some measured cases: with the
'wide' logits a row's top token often holds over 80% of the mass and u sits in its middle, so every such row
samples the top token whatever the walk."""

import torch

TOP_P = 0.8
VARIANT = "skips the top-k selection (treats the first k vocabulary entries as the top k)"


def _top_k(logits, k):
    work = logits.float().clone()
    rows = torch.arange(work.shape[0])
    vals, idx = [], []
    for _ in range(k):
        val, i = work.max(dim=-1)
        vals.append(val)
        idx.append(i)
        work[rows, i] = -torch.inf
    vals = torch.stack(vals, dim=1)
    # softmax over the whole row, renormalised over the k kept tokens, is a softmax over those k logits
    p = torch.exp(vals - vals[:, :1])
    return torch.stack(idx, dim=1), p / p.sum(dim=-1, keepdim=True)


def _sample(idx, p, u, k):
    cdf = p.cumsum(dim=-1)
    j = (cdf <= u[:, None]).sum(dim=-1).clamp(max=k - 1)
    return idx.gather(1, j[:, None]).squeeze(1)


def alternate(logits, u, k):
    idx, p = _top_k(logits, k)
    before = p.cumsum(dim=-1) - p
    p = torch.where(before < TOP_P, p, torch.zeros_like(p))
    return _sample(idx, p / p.sum(dim=-1, keepdim=True), u, k)


def variant(logits, u, k):
    first = logits[:, :k].float()
    p = torch.exp(first - first.amax(dim=-1, keepdim=True))
    p = p / p.sum(dim=-1, keepdim=True)
    before = p.cumsum(dim=-1) - p
    p = torch.where(before < TOP_P, p, torch.zeros_like(p))
    idx = torch.arange(k).expand(logits.shape[0], k)
    return _sample(idx, p / p.sum(dim=-1, keepdim=True), u, k)
