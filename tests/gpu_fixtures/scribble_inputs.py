# task: softmax_fp32
# expect: incorrect
"""In the timing loop, a thread keeps zeroing every shared input buffer, so the grader's fresh inputs turn into
zeros before it reads them back for its expected answer; the kernel then only writes the softmax of zeros (a
constant), which is quick to compute."""
import sys
import threading
import time

import torch

_started = []


def _scribble(sets):
    end = time.monotonic() + 30
    while time.monotonic() < end:
        for s in sets:
            s["x"].zero_()


def kernel(x, out):
    f = sys._getframe(1)
    while f is not None and not (f.f_locals.get("msg") == "time1" and "sets" in f.f_locals):
        f = f.f_back
    if f is None:  # a correctness call: honest
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        out.copy_(e / e.sum(dim=-1, keepdim=True))
        return
    if not _started:
        _started.append(threading.Thread(target=_scribble, args=(f.f_locals["sets"],), daemon=True))
        _started[0].start()
    out.fill_(1.0 / x.shape[-1])
