# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gemm_w4a16_grouped (gpu/precision.py): the weight dequantised to bf16 (as a
kernel does in registers before the bf16 tensor-core product) and accumulated over K tiles in fp32; and a kernel
that takes the weights as symmetric (code - 8), ignoring the zero points."""

import torch

GROUP = 128
TILE_K = 64
VARIANT = "ignores the zero points (symmetric code - 8 dequantisation)"


def _codes(qweight):
    # unpacked with arithmetic instead of bit operations: low = byte mod 16, high = byte div 16
    q = qweight.int()
    n, half = q.shape
    codes = torch.empty(n, 2 * half, dtype=torch.int32)
    codes[:, 0::2] = q % 16
    codes[:, 1::2] = q // 16
    return codes


def _tiled(x, w_bf16):
    # the partial product of every K tile in one batched call, then the tiles added one after another in fp32
    (m, k), n = x.shape, w_bf16.shape[0]
    xt = x.float().reshape(m, k // TILE_K, TILE_K).transpose(0, 1)  # (tiles, M, TILE_K)
    wt = w_bf16.float().reshape(n, k // TILE_K, TILE_K).permute(1, 2, 0)  # (tiles, TILE_K, N)
    partial = xt @ wt
    acc = torch.zeros(m, n, dtype=torch.float32)
    for t in range(partial.shape[0]):
        acc += partial[t]
    return acc.to(torch.bfloat16)


def alternate(x, qweight, scales, zeros):
    codes = _codes(qweight)
    n, k = codes.shape
    g = torch.arange(k) // GROUP  # the group of every column
    w = ((codes - zeros.int()[:, g]).float() * scales.float()[:, g]).to(torch.bfloat16)
    return _tiled(x, w)


def variant(x, qweight, scales, zeros):
    codes = _codes(qweight)
    g = torch.arange(codes.shape[1]) // GROUP
    w = ((codes - 8).float() * scales.float()[:, g]).to(torch.bfloat16)
    return _tiled(x, w)
