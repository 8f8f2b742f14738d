# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for nsa_topk_block_select (gpu/precision.py): pooling by two half-block sums, the
softmax through a log-sum-exp, and selection by counting how many blocks beat each one; and a selection that
sums the raw scores over the group's heads without the per-head softmax."""

import torch

BLOCK = 64
VARIANT = "sums raw dot-product scores over the head group (no per-head softmax)"


def _means(k):
    b, hk, l, d = k.shape
    kf = k.float().view(b, hk, l // BLOCK, 2, BLOCK // 2, d)
    halves = kf.sum(dim=4)  # (B, HK, NB, 2, D)
    return (halves[..., 0, :] + halves[..., 1, :]) / BLOCK


def _raw(q, k):
    b, hq, d = q.shape
    hk = k.shape[1]
    kbar = _means(k)
    qg = q.float().view(b, hk, hq // hk, d)
    return torch.einsum("bgid,bgnd->bgin", qg, kbar) * d ** -0.5  # (B, HK, G, NB)


def _select(score, n):
    # rank of block j = how many blocks score higher; the chosen blocks are those with rank < n, in index order
    rank = (score[..., None, :] > score[..., :, None]).sum(dim=-1)
    chosen = rank < n
    nb = score.shape[-1]
    idx = torch.arange(nb).expand_as(score)
    # ascending indices of the chosen blocks: push the others past the end and take the n smallest positions
    keyed = torch.where(chosen, idx, idx + nb)
    out = torch.empty(*score.shape[:-1], n, dtype=torch.int64)
    flat_k, flat_o = keyed.reshape(-1, nb), out.view(-1, n)
    for row in range(flat_k.shape[0]):
        flat_o[row] = flat_k[row][flat_k[row] < nb]
    return out


def alternate(q, k, topn):
    s = _raw(q, k)
    p = torch.exp(s - torch.logsumexp(s, dim=-1, keepdim=True))
    return _select(p.sum(dim=2), int(topn))


def variant(q, k, topn):
    return _select(_raw(q, k).sum(dim=2), int(topn))
