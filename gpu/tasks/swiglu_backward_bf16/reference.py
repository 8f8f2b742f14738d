# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Backward of y = silu(gate) * up: dgate through the SiLU derivative, dup = dy * silu(gate); fp32 math, bf16 out."""

import torch


def make_inputs(shape, r):
    t, f = shape["T"], shape["F"]
    bf = torch.bfloat16
    return {"gate": r.normal(t, f, dtype=bf, scale=1.5), "up": r.normal(t, f, dtype=bf),
            "dy": r.normal(t, f, dtype=bf, scale=0.5)}


def reference(gate, up, dy):
    g, u, d = gate.float(), up.float(), dy.float()
    s = torch.sigmoid(g)
    dup = d * g * s
    dgate = d * u * s * (1.0 + g * (1.0 - s))
    return dgate.to(torch.bfloat16), dup.to(torch.bfloat16)


def eager(gate, up, dy):
    """The library path a user would call (autograd through F.silu in bf16): the baseline for the audit flag."""
    with torch.enable_grad():
        g = gate.detach().requires_grad_(True)
        u = up.detach().requires_grad_(True)
        (torch.nn.functional.silu(g) * u).backward(dy)
    return g.grad, u.grad
