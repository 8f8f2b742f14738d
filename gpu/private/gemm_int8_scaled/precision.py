# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gemm_int8_scaled (gpu/precision.py): an int32 GEMM accumulated tile by tile
along K with the two scales folded into one factor, and a kernel that treats the weight scale as per-tensor."""

import torch

VARIANT = "one per-tensor weight scale (b_scale[0]) in place of the per-column scales"
TILE_K = 32


def alternate(a, b, a_scale, b_scale):
    # as a tensor-core kernel would: int32 partial products of K tiles summed into an int32 accumulator, then one
    # fp32 factor a_scale[m] * b_scale[n] in the epilogue
    m, k = a.shape
    acc = torch.zeros(m, b.shape[0], dtype=torch.int32)
    for c in range(0, k, TILE_K):
        acc += a[:, c:c + TILE_K].int() @ b[:, c:c + TILE_K].int().t()
    factor = a_scale[:, None] * b_scale[None, :]
    return (acc.float() * factor).to(torch.bfloat16)


def variant(a, b, a_scale, b_scale):
    acc = a.int() @ b.int().t()
    return (acc.float() * a_scale[:, None] * b_scale[0]).to(torch.bfloat16)
