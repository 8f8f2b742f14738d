# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Sliding-window causal attention with grouped key/value heads, fp32 math."""

import torch


def make_inputs(shape, r):
    b, hq, hk, l, d = shape["B"], shape["HQ"], shape["HK"], shape["L"], shape["D"]
    bf = torch.bfloat16
    return {"q": r.normal(b, hq, l, d, dtype=bf), "k": r.normal(b, hk, l, d, dtype=bf),
            "v": r.normal(b, hk, l, d, dtype=bf), "window": shape["W"]}


def _mask(l, w, device):
    i = torch.arange(l, device=device)[:, None]
    j = torch.arange(l, device=device)[None, :]
    return (j <= i) & (j > i - w)


def reference(q, k, v, window=None):
    b, hq, l, d = q.shape
    g = hq // k.shape[1]
    w = l if window is None else window
    mask = _mask(l, w, q.device)
    out = torch.empty_like(q)
    for i in range(b):
        kk = k[i].float().repeat_interleave(g, dim=0)
        vv = v[i].float().repeat_interleave(g, dim=0)
        s = (q[i].float() @ kk.transpose(-1, -2)) * d ** -0.5
        s = s.masked_fill(~mask, float("-inf"))
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        out[i] = ((p / p.sum(dim=-1, keepdim=True)) @ vv).to(q.dtype)
    return out


def eager(q, k, v, window=None):
    g = q.shape[1] // k.shape[1]
    mask = _mask(q.shape[2], q.shape[2] if window is None else window, q.device)
    return torch.nn.functional.scaled_dot_product_attention(
        q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1), attn_mask=mask)
