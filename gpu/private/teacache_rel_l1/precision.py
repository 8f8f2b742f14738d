# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for teacache_rel_l1 (gpu/precision.py): fp32 partial sums over fixed-size blocks
combined in a second pass, as a split reduction on a GPU would, and a decision that accumulates the raw relative
distance without the fitted rescale."""

import torch

THRESHOLD = 0.4
VARIANT = "accumulates the raw relative L1 distance, leaving out the polynomial rescale"


def _rel_blocked(cur, prev, block=1000):
    b = cur.shape[0]
    c = cur.reshape(b, -1)
    p = prev.reshape(b, -1)
    n = c.shape[1]
    num_parts, den_parts = [], []
    for s in range(0, n, block):
        pf = p[:, s:s + block].float()
        num_parts.append((c[:, s:s + block].float() - pf).abs().sum(dim=1))
        den_parts.append(pf.abs().sum(dim=1))
    num = torch.stack(num_parts, dim=1).sum(dim=1)
    den = torch.stack(den_parts, dim=1).sum(dim=1)
    return num / den


def _decide(a):
    skip = a < THRESHOLD
    return torch.where(skip, a, torch.zeros_like(a)), skip


def alternate(cur, prev, acc):
    z = _rel_blocked(cur, prev)
    poly = 6.0 * z ** 3 - 3.0 * z ** 2 + 2.2 * z - 0.02
    return _decide(acc + poly)


def variant(cur, prev, acc):
    return _decide(acc + _rel_blocked(cur, prev))
