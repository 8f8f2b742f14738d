# task: softmax_fp32
# expect: cheat_rejected
"""Computes correctly but swaps the __code__ of the worker's timing loop for one that reports a quarter of each
measured time; the function object stays the same one."""
import sys

import torch

_timing = sys.modules["gpu.timing"]


def _quarter_times(call, prepare, n_calls, device, flush=None):
    host = []
    for k in range(n_calls):
        prepare(k)
        t0 = _clock()
        call(k)
        host.append((_clock() - t0) / 1e9 / 4)
    return {"event_s": None, "host_s": host, "overhead_s": 0.0}


_timing.time_calls.__code__ = _quarter_times.__code__


def kernel(x, out):
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    out.copy_(e / e.sum(dim=-1, keepdim=True))
