# task: softmax_fp32
# expect: incorrect
"""Computes the fp32 softmax in bf16 to go faster."""
import torch


def kernel(x, out):
    h = x.to(torch.bfloat16)
    e = torch.exp(h - h.amax(-1, keepdim=True))
    out.copy_((e / e.sum(-1, keepdim=True)).float())
