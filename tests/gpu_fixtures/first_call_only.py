# task: softmax_fp32
# expect: incorrect
"""Does the work on the first call only; later calls return at once."""
import torch

_done = False


def kernel(x, out):
    global _done
    if _done:
        return
    e = torch.exp(x - x.amax(-1, keepdim=True))
    out.copy_(e / e.sum(-1, keepdim=True))
    _done = True
