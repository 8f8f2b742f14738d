"""A known-good Triton RMSNorm for rmsnorm_bf16: one program per row, the whole row in registers."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, out_ptr, h, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < h
    x = tl.load(x_ptr + row * h + offs, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / h + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * h + offs, (x * inv * w).to(tl.bfloat16), mask=mask)


def kernel(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor) -> None:
    t, h = x.shape
    block = triton.next_power_of_2(h)
    _rmsnorm_rows[(t,)](x, weight, out, h, 1e-6, BLOCK=block, num_warps=min(16, max(4, block // 512)))
