# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write soft-capped causal attention of q, k, v into out, (B, H, L, D) bf16 (cap 50)."""

import torch


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("soft-capped attention kernel not written yet")
