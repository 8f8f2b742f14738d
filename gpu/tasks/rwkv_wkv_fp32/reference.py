# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The RWKV-4 WKV time mix: per channel, an exponentially decayed weighted average of past values, with an extra
bonus weight on the current token. Stepped through time with the running sums kept relative to a running maximum
exponent (so exp never overflows), in fp64 so that the exponent does not drift over long sequences; fp32 out."""

import torch


def make_inputs(shape, r):
    b, t, c = shape["B"], shape["T"], shape["C"]
    return {
        "w": -torch.exp(r.uniform(c, low=-5.0, high=1.5)),  # per-step log decay, in (-4.5, -0.0067)
        "u": r.uniform(c, low=-1.0, high=1.0),  # the current token's bonus
        "k": r.normal(b, t, c),
        "v": r.normal(b, t, c),
    }


def reference(w, u, k, v):
    b, t, c = k.shape
    f64 = torch.float64
    w, u = w.to(f64), u.to(f64)
    num = torch.zeros(b, c, dtype=f64, device=k.device)  # sum of e^(exponent - top) * v
    den = torch.zeros_like(num)  # sum of e^(exponent - top)
    top = torch.full_like(num, float("-inf"))  # the exponent both sums are measured against
    y = torch.empty_like(k)
    for i in range(t):
        kt, vt = k[:, i].to(f64), v[:, i].to(f64)
        # the output: everything before i, plus token i with its bonus u
        cur = u + kt
        m = torch.maximum(top, cur)
        old, new = torch.exp(top - m), torch.exp(cur - m)
        y[:, i] = ((old * num + new * vt) / (old * den + new)).to(k.dtype)
        # the state: decay the past by e^w and add token i without the bonus
        past = top + w
        m = torch.maximum(past, kt)
        old, new = torch.exp(past - m), torch.exp(kt - m)
        num, den, top = old * num + new * vt, old * den + new, m
    return y
