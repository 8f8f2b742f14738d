# task: softmax_fp32
# expect: incorrect
"""Hands back the input instead of writing the output."""


def kernel(x, out):
    return x
