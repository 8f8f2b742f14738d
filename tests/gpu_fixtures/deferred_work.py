# task: softmax_fp32
# expect: incorrect
"""Correct answers on the correctness calls; in the timing loop each call returns at once and leaves its work to a
background thread, so the measured time is nearly nothing."""
import sys
import threading
import time

import torch


def _softmax(x, out):
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    out.copy_(e / e.sum(dim=-1, keepdim=True))


def _timing() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name.startswith("time"):
            return True
        frame = frame.f_back
    return False


def kernel(x, out):
    if not _timing():
        _softmax(x, out)
        return

    def later():
        time.sleep(0.05)
        _softmax(x, out)

    threading.Thread(target=later, daemon=True).start()
