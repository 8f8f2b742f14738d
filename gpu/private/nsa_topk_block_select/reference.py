# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Native-sparse-attention block selection at decode time: the key cache is mean-pooled into blocks of 64 tokens,
every query head scores the blocks with a softmax, the probabilities are summed over the query heads that share a
key/value head, and the topn best blocks of each group are returned as ascending block indices."""

import torch

BLOCK = 64
REL_GAP = 2e-3  # make_inputs keeps the topn-th and the next group score at least this far apart (relative)


def _pooled(k, dtype):
    """(B, HK, NB, D) block means of k, in `dtype`, one sequence at a time."""
    b, hk, l, d = k.shape
    return torch.stack([k[i].to(dtype).view(hk, l // BLOCK, BLOCK, d).mean(dim=2) for i in range(b)])


def _group_scores(q, kbar):
    """(B, HK, NB): per-head softmax over blocks of q . kbar / sqrt(D), summed over each group of heads."""
    b, hq, d = q.shape
    hk = kbar.shape[1]
    s = torch.einsum("bhd,bhnd->bhn", q.to(kbar.dtype), kbar.repeat_interleave(hq // hk, dim=1)) * d ** -0.5
    return torch.softmax(s, dim=-1).view(b, hk, hq // hk, -1).sum(dim=2)


def make_inputs(shape, r):
    b, hq, hk, nb, d, n = shape["B"], shape["HQ"], shape["HK"], shape["NB"], shape["D"], shape["TOPN"]
    bf = torch.bfloat16
    k = r.normal(b, hk, nb * BLOCK, d, dtype=bf)
    q = r.normal(b, hq, d, dtype=bf, scale=8.0)  # block means are ~8x smaller than keys: scores near unit size
    # No near-ties at the cut: redraw the queries of any group whose topn-th and next score are too close.
    kbar = _pooled(k, torch.float64)
    for _ in range(100):
        p = _group_scores(q, kbar).sort(dim=-1, descending=True).values
        cut, nxt = p[..., n - 1], p[..., n]
        bad = ((cut - nxt) < REL_GAP * cut) | (nxt < 1e-20)
        if not bool(bad.any()):
            break
        fresh = r.normal(b, hq, d, dtype=bf, scale=8.0)
        q = torch.where(bad.repeat_interleave(hq // hk, dim=1)[..., None], fresh, q)
    else:
        raise RuntimeError("could not draw tie-free block scores")
    return {"q": q, "k": k, "topn": torch.tensor(n, dtype=torch.int64, device=r.device)}


def reference(q, k, topn):
    scores = _group_scores(q, _pooled(k, torch.float32))
    return scores.topk(int(topn), dim=-1).indices.sort(dim=-1).values
