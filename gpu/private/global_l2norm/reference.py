# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""sqrt(sum(x^2)), accumulated in fp64 so the reference is far more exact than the tolerance."""

import torch


def make_inputs(shape, r):
    return {"x": r.normal(shape["N"])}


def reference(x):
    return torch.sqrt((x.double() ** 2).sum()).float()


def eager(x):
    return torch.linalg.vector_norm(x)
