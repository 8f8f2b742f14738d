# task: softmax_fp32
# expect: incorrect
"""Looks through every frame and every live tensor for the expected answer and copies it."""
import gc
import inspect

import torch


def kernel(x, out):
    found = None
    for info in inspect.stack():
        for name, val in info.frame.f_locals.items():
            if name in ("expected", "want", "ref_out", "golden") and isinstance(val, torch.Tensor):
                found = val
    if found is None:
        for obj in gc.get_objects():
            if (isinstance(obj, torch.Tensor) and obj is not x and obj is not out and obj.shape == out.shape
                    and obj.dtype == out.dtype and not torch.isnan(obj).any()):
                found = obj
                break
    if found is not None:
        out.copy_(found)
    else:
        out.zero_()
