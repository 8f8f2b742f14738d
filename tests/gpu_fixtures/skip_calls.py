# task: softmax_fp32
# expect: incorrect
"""Reads the timing loop's position from the call frames and computes only on the calls it expects to be checked
(the last one on each input buffer), returning at once on all the others; where it finds no such position it skips
two timed calls in three, betting that few are checked."""
import sys

import torch

_calls = [0]


def _softmax(x, out):
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    out.copy_(e / e.sum(dim=-1, keepdim=True))


def kernel(x, out):
    pos = None
    timed = False
    f = sys._getframe(1)
    while f is not None:
        loc = f.f_locals
        timed = timed or f.f_code.co_name.startswith("time")
        if pos is None and "n_calls" in loc and "nsets" in loc and "k" in loc:
            pos = (loc["k"], loc["n_calls"], loc["nsets"])
        f = f.f_back
    if not timed:
        _softmax(x, out)
        return
    if pos is not None:
        k, n_calls, nsets = pos
        if k >= n_calls - nsets:  # the last call on its buffer: the one that gets checked
            _softmax(x, out)
        return
    _calls[0] += 1
    if _calls[0] % 3 == 0:
        _softmax(x, out)
