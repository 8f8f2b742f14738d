# task: softmax_fp32
# expect: cheat_rejected
"""Correct, but makes every clock the grader might read run 100x slower."""
import time

import torch

_pc, _pcn = time.perf_counter, time.perf_counter_ns
time.perf_counter = lambda: _pc() / 100
time.perf_counter_ns = lambda: _pcn() // 100
_et = torch.cuda.Event.elapsed_time
torch.cuda.Event.elapsed_time = lambda self, end: _et(self, end) / 100


def kernel(x, out):
    e = torch.exp(x - x.amax(-1, keepdim=True))
    out.copy_(e / e.sum(-1, keepdim=True))
