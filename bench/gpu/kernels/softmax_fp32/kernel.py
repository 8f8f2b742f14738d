"""A known-good Triton softmax for softmax_fp32: one program per row, an online max/sum pass over column blocks,
then a normalising pass. Used by bench/gpu/run.py and, under the Triton interpreter, by the CPU tests."""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    src = x_ptr + row * n_cols
    dst = out_ptr + row * n_cols
    m = tl.full([BLOCK], -1e30, tl.float32)  # finite, so lanes that never see data stay NaN-free
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(src + offs, mask=offs < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(src + offs, mask=offs < n_cols, other=-float("inf"))
        tl.store(dst + offs, tl.exp(x - row_max) / total, mask=offs < n_cols)


def kernel(x: torch.Tensor, out: torch.Tensor) -> None:
    rows, cols = x.shape
    block = min(triton.next_power_of_2(cols), 4096)
    _softmax_rows[(rows,)](x, out, cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
