# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for topk_topp_sampling (gpu/precision.py): an independent fp32 sampler (top-k as a
kernel finds it: each chunk of 256 logits reduced to its max, the k-th largest chunk max a pivot no smaller than
the row's k-th logit, then k rounds of argmax among the few logits at or above the pivot; a softmax over the k
logits alone, the nucleus cut and the inverse CDF by counting), and one that skips the top-k selection: it runs
the nucleus cut and the inverse CDF over the first k vocabulary entries as if they were the k most probable.

Variants that keep the selection (no top-p cut, the cut off by one, the CDF walked in vocabulary order or from
the least probable end, u ignored) return the same tokens as the reference on some measured cases: with the
'wide' logits a row's top token often holds over 80% of the mass and u sits in its middle, so every such row
samples the top token whatever the walk."""

import torch

TOP_P = 0.8
CHUNK = 256
VARIANT = "skips the top-k selection (treats the first k vocabulary entries as the top k)"


def _argmax_rounds(vals, k):
    """Indices (into vals' last dim) and values of the k largest, by k rounds of argmax."""
    work = vals.clone()
    rows = torch.arange(work.shape[0])
    picked, got = [], []
    for _ in range(k):
        val, i = work.max(dim=-1)
        picked.append(i)
        got.append(val)
        work[rows, i] = -torch.inf
    return torch.stack(picked, dim=1), torch.stack(got, dim=1)


def _top_k(logits, k):
    x = logits.float()
    b, v = x.shape
    chunks = -(-v // CHUNK)
    if chunks >= k:  # the k largest chunk maxima are k distinct logits: the row's k-th logit is at least the pivot
        padded = torch.full((b, chunks * CHUNK), -torch.inf)
        padded[:, :v] = x
        _, top_max = _argmax_rounds(padded.reshape(b, chunks, CHUNK).amax(dim=-1), k)
        pivot = top_max[:, -1]
    else:
        pivot = torch.full((b,), -torch.inf)
    idx, vals = [], []
    for r in range(b):  # the candidates of one row, in vocabulary order
        cand = (x[r] >= pivot[r]).nonzero().squeeze(1)
        i, val = _argmax_rounds(x[r, cand][None], k)
        idx.append(cand[i[0]])
        vals.append(val[0])
    idx, vals = torch.stack(idx), torch.stack(vals)
    # softmax over the whole row, renormalised over the k kept tokens, is a softmax over those k logits
    p = torch.exp(vals - vals[:, :1])
    return idx, p / p.sum(dim=-1, keepdim=True)


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
