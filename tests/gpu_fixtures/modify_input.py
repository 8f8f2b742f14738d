# task: softmax_fp32
# expect: incorrect
"""Computes the right answer but uses the input as scratch space."""
import torch


def kernel(x, out):
    x.sub_(x.amax(-1, keepdim=True)).exp_()
    out.copy_(x / x.sum(-1, keepdim=True))
