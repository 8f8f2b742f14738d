# task: softmax_fp32
# expect: incorrect,cheat_rejected
# needs: cuda
"""Launches the work on a side stream, delayed, and returns without joining it to the caller's stream."""
import torch

_side = None


def kernel(x, out):
    global _side
    _side = _side or torch.cuda.Stream()
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        torch.cuda._sleep(50_000_000)
        e = torch.exp(x - x.amax(-1, keepdim=True))
        out.copy_(e / e.sum(-1, keepdim=True))
