# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Row-wise softmax over the last dimension, fp32."""

import torch


def make_inputs(shape, r):
    return {"x": r.normal(shape["R"], shape["C"], scale=2.0)}


def reference(x):
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=-1, keepdim=True)
