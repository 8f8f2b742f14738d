# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write latent-attention decode output into out, (B, H, C) bf16.
q_nope (B, H, C), q_pe (B, H, R), kv_c (B, N, C), k_pe (B, N, R), all bf16; scale 1/sqrt(192)."""

import torch


def kernel(q_nope: torch.Tensor, q_pe: torch.Tensor, kv_c: torch.Tensor, k_pe: torch.Tensor,
           out: torch.Tensor) -> None:
    raise NotImplementedError("MLA decode kernel not written yet")
