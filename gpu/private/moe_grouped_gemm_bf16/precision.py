# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for moe_grouped_gemm_bf16 (gpu/precision.py): row tiles of 16 that look up the
expert of every row and accumulate over H in fp32 chunks of 32, as a tiled grouped-GEMM kernel would; and a
kernel that assumes every expert got the same number of rows."""

import torch

TILE_M, TILE_K = 16, 32
VARIANT = "ignores the offsets (assumes R / E rows per expert, the remainder to the last)"


def _tiled(x, w, expert_of_row):
    rows, h = x.shape
    pad = -h % TILE_K  # zero columns past H change no sum
    xf = torch.nn.functional.pad(x.float(), (0, pad))
    wf = torch.nn.functional.pad(w.float(), (0, pad))
    nk = (h + pad) // TILE_K
    out = torch.empty(rows, w.shape[1], dtype=torch.bfloat16)
    for r0 in range(0, rows, TILE_M):
        tile = slice(r0, min(r0 + TILE_M, rows))
        wt = wf[expert_of_row[tile]]  # (rows, N, H): each row's own expert weight
        n_rows = wt.shape[0]
        xk = xf[tile].reshape(n_rows, 1, nk, TILE_K).transpose(1, 2)  # (rows, tiles, 1, TILE_K)
        wk = wt.reshape(n_rows, -1, nk, TILE_K).permute(0, 2, 3, 1)  # (rows, tiles, TILE_K, N)
        partial = (xk @ wk)[:, :, 0]  # (rows, tiles, N): every K tile's product in one batched call
        acc = torch.zeros(n_rows, w.shape[1], dtype=torch.float32)
        for t in range(nk):  # the tiles added one after another in fp32
            acc += partial[:, t]
        out[tile] = acc.to(torch.bfloat16)
    return out


def alternate(x, w, offsets):
    rows = torch.arange(x.shape[0], dtype=torch.int32)
    expert_of_row = torch.searchsorted(offsets[1:], rows, right=True).clamp(max=w.shape[0] - 1)
    return _tiled(x, w, expert_of_row)


def variant(x, w, offsets):
    e = w.shape[0]
    per = x.shape[0] // e
    expert_of_row = (torch.arange(x.shape[0]) // max(per, 1)).clamp(max=e - 1)
    return _tiled(x, w, expert_of_row)
