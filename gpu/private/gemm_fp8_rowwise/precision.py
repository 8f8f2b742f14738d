# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gemm_fp8_rowwise (gpu/precision.py): an independent tiled fp8 GEMM (fp32
accumulators over K tiles, the row and column scales multiplied together in the epilogue), and one that uses a
single per-tensor scale (the mean of each scale vector) instead of the per-row and per-column ones."""

import torch

TILE_K = 32
VARIANT = "uses one per-tensor scale (each scale vector's mean) instead of per-row and per-column scales"


def alternate(a, b, a_scale, b_scale):
    m, k = a.shape
    acc = torch.zeros(m, b.shape[0])
    for k0 in range(0, k, TILE_K):
        acc += a[:, k0:k0 + TILE_K].float() @ b[:, k0:k0 + TILE_K].float().t()
    return (acc * (a_scale[:, None] * b_scale[None, :])).to(torch.bfloat16)


def variant(a, b, a_scale, b_scale):
    acc = a.float() @ b.float().t()
    return (acc * (a_scale.mean() * b_scale.mean())).to(torch.bfloat16)
