# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gemm_fp8_rowwise (gpu/precision.py): an independent tiled fp8 GEMM (each K
tile of 128 a product in fp32, the tiles' products added into an fp32 accumulator one after another, the row and
column scales multiplied together in the epilogue), and one that uses a single per-tensor scale (the mean of each
scale vector) instead of the per-row and per-column ones."""

import torch
import torch.nn.functional as F

TILE_K = 128
VARIANT = "uses one per-tensor scale (each scale vector's mean) instead of per-row and per-column scales"


def alternate(a, b, a_scale, b_scale):
    m, k = a.shape
    n = b.shape[0]
    tiles = -(-k // TILE_K)
    pad = tiles * TILE_K - k  # zero columns add nothing
    at = F.pad(a.float(), (0, pad)).reshape(m, tiles, TILE_K).transpose(0, 1)
    bt = F.pad(b.float(), (0, pad)).reshape(n, tiles, TILE_K).permute(1, 2, 0)
    part = at @ bt  # (tiles, m, n): what each K step's tensor-core instructions add
    acc = torch.zeros(m, n)
    for t in range(tiles):
        acc += part[t]
    return (acc * (a_scale[:, None] * b_scale[None, :])).to(torch.bfloat16)


def variant(a, b, a_scale, b_scale):
    acc = a.float() @ b.float().t()
    return (acc * (a_scale.mean() * b_scale.mean())).to(torch.bfloat16)
