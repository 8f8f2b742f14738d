# task: softmax_fp32
# expect: incorrect
"""A Triton kernel that forgets to subtract the row maximum and to mask the tail: wrong under the interpreter too."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_naive(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=offs < n_cols)


def kernel(x, out):
    _softmax_naive[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
