# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gemm_bf16 (gpu/precision.py): an independent tiled GEMM (fp32 accumulators
fed one K tile at a time, rounded to bf16 once at the end), and one that does its arithmetic in bf16."""

import torch

TILE_K = 32
VARIANT = "accumulates in bf16 (every product and running sum rounded to bf16) instead of fp32"


def alternate(a, b):
    m, k = a.shape
    acc = torch.zeros(m, b.shape[1])
    for k0 in range(0, k, TILE_K):
        acc += a[:, k0:k0 + TILE_K].float() @ b[k0:k0 + TILE_K].float()
    return acc.to(torch.bfloat16)


def variant(a, b):
    acc = torch.zeros(a.shape[0], b.shape[1], dtype=torch.bfloat16)
    for kk in range(a.shape[1]):
        acc = acc + a[:, kk, None] * b[None, kk]  # bf16 tensors: the product and the sum each round to bf16
    return acc
