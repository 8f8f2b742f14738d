# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""dW = dy^T @ x, the weight gradient of y = x @ W^T: the product of fp32 upcasts (exact bf16 products, fp32 sums),
rounded once to bf16."""

import torch


def make_inputs(shape, r):
    t, o, i = shape["T"], shape["O"], shape["I"]
    s = t ** -0.25  # keeps the sums near unit size whatever T is
    return {"dy": r.normal(t, o, dtype=torch.bfloat16, scale=s), "x": r.normal(t, i, dtype=torch.bfloat16, scale=s)}


def reference(dy, x):
    return (dy.float().t() @ x.float()).to(torch.bfloat16)


def eager(dy, x):
    """The library path a user would call (a bf16 cuBLAS product): the baseline for the audit flag."""
    return dy.t() @ x
