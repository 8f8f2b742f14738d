# task: softmax_fp32
# expect: cheat_rejected
"""Calls the library softmax the task forbids."""
import torch


def kernel(x, out):
    out.copy_(torch.softmax(x, dim=-1))
