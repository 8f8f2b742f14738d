# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The selective-scan recurrence, one time step at a time."""

import torch


def make_inputs(shape, r):
    b, l, d, n = shape["B"], shape["L"], shape["D"], shape["N"]
    return {
        "x": r.normal(b, l, d),
        "delta": r.uniform(b, l, d, low=0.001, high=0.1),
        "a": -r.uniform(d, n, low=0.5, high=4.0),
        "b": r.normal(b, l, n),
        "c": r.normal(b, l, n),
    }


def reference(x, delta, a, b, c):
    bsz, l, d = x.shape
    h = torch.zeros(bsz, d, a.shape[1], dtype=torch.float32, device=x.device)
    y = torch.empty_like(x)
    for t in range(l):
        dt = delta[:, t, :, None]
        h = torch.exp(dt * a) * h + (dt * x[:, t, :, None]) * b[:, t, None, :]
        y[:, t, :] = (h * c[:, t, None, :]).sum(dim=-1)
    return y
