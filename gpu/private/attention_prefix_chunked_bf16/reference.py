# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Chunked prefill: a chunk of M new tokens attends to the P tokens already in the cache and, causally, to itself.
Grouped key/value heads, fp32 math, one (batch, query head) at a time."""

import torch


def make_inputs(shape, r):
    b, hq, hk, m, p, d = shape["B"], shape["HQ"], shape["HK"], shape["M"], shape["P"], shape["D"]
    bf = torch.bfloat16
    return {"q": r.normal(b, hq, m, d, dtype=bf),
            "k_cache": r.normal(b, hk, p, d, dtype=bf), "v_cache": r.normal(b, hk, p, d, dtype=bf),
            "k_new": r.normal(b, hk, m, d, dtype=bf), "v_new": r.normal(b, hk, m, d, dtype=bf)}


def _visible(m, p, device):
    """(M, P + M) bool: new token i sees every cached token and new tokens 0..i."""
    i = torch.arange(m, device=device)[:, None]
    j = torch.arange(p + m, device=device)[None, :]
    return j <= p + i


def reference(q, k_cache, v_cache, k_new, v_new):
    b, hq, m, d = q.shape
    hk, p = k_cache.shape[1], k_cache.shape[2]
    g = hq // hk
    mask = _visible(m, p, q.device)
    out = torch.empty_like(q)
    for i in range(b):
        for h in range(hq):
            kk = torch.cat([k_cache[i, h // g], k_new[i, h // g]]).float()
            vv = torch.cat([v_cache[i, h // g], v_new[i, h // g]]).float()
            s = (q[i, h].float() @ kk.T) * d ** -0.5
            s = s.masked_fill(~mask, float("-inf"))
            w = torch.exp(s - s.amax(dim=-1, keepdim=True))
            out[i, h] = ((w / w.sum(dim=-1, keepdim=True)) @ vv).to(q.dtype)
    return out


def eager(q, k_cache, v_cache, k_new, v_new):
    """The library path a user would call: the baseline for the audit flag."""
    g = q.shape[1] // k_cache.shape[1]
    k = torch.cat([k_cache, k_new], dim=2).repeat_interleave(g, dim=1)
    v = torch.cat([v_cache, v_new], dim=2).repeat_interleave(g, dim=1)
    mask = _visible(q.shape[2], k_cache.shape[2], q.device)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
