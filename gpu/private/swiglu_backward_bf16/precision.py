# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for swiglu_backward_bf16 (gpu/precision.py): the derivative written as
s + silu * (1 - s) with sigmoid from exp(-|g|), and one that takes sigmoid(gate) as the SiLU derivative."""

import torch

VARIANT = "uses sigmoid(gate) as the derivative of silu (drops the gate * s * (1 - s) term)"


def alternate(gate, up, dy):
    g, u, d = gate.float(), up.float(), dy.float()
    e = torch.exp(-g.abs())  # sigmoid without overflow, as a kernel often writes it
    s = torch.where(g >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    silu = g * s
    dsilu = s + silu * (1.0 - s)
    return (d * dsilu * u).to(torch.bfloat16), (silu * d).to(torch.bfloat16)


def variant(gate, up, dy):
    g, u, d = gate.float(), up.float(), dy.float()
    s = torch.sigmoid(g)
    return (d * u * s).to(torch.bfloat16), (d * g * s).to(torch.bfloat16)
