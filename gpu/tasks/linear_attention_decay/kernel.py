# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write decayed causal linear attention into out, (B, H, L, D) bf16."""

import torch


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, decay: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("linear attention kernel not written yet")
