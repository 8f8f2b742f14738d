# task: softmax_fp32
# expect: incorrect
"""Computes once, then replays that answer for every input of the same shape."""
import torch

_memo = {}


def kernel(x, out):
    key = tuple(x.shape)
    if key not in _memo:
        _memo[key] = torch.exp(x - x.amax(-1, keepdim=True))
        _memo[key] /= _memo[key].sum(-1, keepdim=True)
    out.copy_(_memo[key])
