# task: softmax_fp32
# expect: cheat_rejected,incorrect
"""Waits until the first call (after any import-time check) and then makes comparisons always succeed."""
import torch


def kernel(x, out):
    torch.allclose = lambda *a, **k: True
    torch.equal = lambda *a, **k: True
    torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
    out.zero_()
