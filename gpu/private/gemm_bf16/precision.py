# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gemm_bf16 (gpu/precision.py): an independent tiled GEMM (each K tile of 64 a
product in fp32, the tiles' products added into an fp32 accumulator one after another, rounded to bf16 once at
the end), and one that does its arithmetic in bf16."""

import torch
import torch.nn.functional as F

TILE_K = 64
VARIANT = "accumulates in bf16 (every product and running sum rounded to bf16) instead of fp32"


def alternate(a, b):
    m, k = a.shape
    n = b.shape[1]
    tiles = -(-k // TILE_K)
    pad = tiles * TILE_K - k  # zero columns of a and rows of b add nothing
    at = F.pad(a.float(), (0, pad)).reshape(m, tiles, TILE_K).transpose(0, 1)
    bt = F.pad(b.float(), (0, 0, 0, pad)).reshape(tiles, TILE_K, n)
    part = at @ bt  # (tiles, m, n): what each K step's tensor-core instructions add
    acc = torch.zeros(m, n)
    for t in range(tiles):
        acc += part[t]
    return acc.to(torch.bfloat16)


def variant(a, b):
    acc = torch.zeros(a.shape[0], b.shape[1], dtype=torch.bfloat16)
    for kk in range(a.shape[1]):
        acc = acc + a[:, kk, None] * b[None, kk]  # bf16 tensors: the product and the sum each round to bf16
    return acc
