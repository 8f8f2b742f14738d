# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""TeaCache-style step skipping: the relative L1 distance between this step's and the previous step's modulated
inputs, passed through a fitted cubic, is added to a running accumulator; while the accumulator stays under the
threshold the step is skipped, otherwise it is computed and the accumulator restarts from zero."""

import torch

THRESHOLD = 0.4
COEFFS = (6.0, -3.0, 2.2, -0.02)  # highest power first


def rescale(z):
    out = torch.zeros_like(z)
    for c in COEFFS:
        out = out * z + c
    return out


def _accumulated(cur, prev, acc):
    """acc + rescale(rel) per sample, in fp64."""
    b = cur.shape[0]
    num = (cur.float() - prev.float()).abs().reshape(b, -1).sum(dim=1, dtype=torch.float64)
    den = prev.float().abs().reshape(b, -1).sum(dim=1, dtype=torch.float64)
    return acc.double() + rescale(num / den)


def make_inputs(shape, r):
    b, n_t, d = shape["B"], shape["L"], shape["D"]
    bf = torch.bfloat16
    prev = r.normal(b, n_t, d)
    # samples drift by different amounts between steps: a relative L1 change from about 2% to 25%, whatever the
    # input distribution
    noise = r.normal(b, n_t, d)
    step = r.uniform(b, low=0.02, high=0.25, dtype=noise.dtype) * (prev.abs().mean() / noise.abs().mean())
    cur = (prev + step[:, None, None] * noise).to(bf)
    prev = prev.to(bf)
    acc = r.uniform(b, low=0.0, high=0.4)
    # keep every sample's accumulated value at least 0.01 from the threshold
    near = (_accumulated(cur, prev, acc) - THRESHOLD).abs() < 0.01
    acc = torch.where(near, acc + 0.03, acc)
    return {"cur": cur, "prev": prev, "acc": acc}


def reference(cur, prev, acc):
    a = _accumulated(cur, prev, acc)
    skip = a < THRESHOLD
    return torch.where(skip, a, torch.zeros_like(a)).float(), skip
