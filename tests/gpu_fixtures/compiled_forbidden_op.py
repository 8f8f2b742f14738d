# task: softmax_fp32
# expect: cheat_rejected
"""Hides the forbidden library softmax behind torch.compile: the compiled graph's operators still pass through the
grader's operator watch (which keeps Dynamo out of its own frame without loading Dynamo for every submission)."""
import torch

_softmax = torch.compile(lambda x: torch.softmax(x, dim=-1), backend="aot_eager", dynamic=False)


def kernel(x, out):
    out.copy_(_softmax(x))
