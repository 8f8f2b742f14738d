# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): route every token to its top_k experts and write x_sorted, token_idx, weight and offsets."""

import torch


def kernel(router_logits: torch.Tensor, x: torch.Tensor, top_k: int, x_sorted: torch.Tensor,
           token_idx: torch.Tensor, weight: torch.Tensor, offsets: torch.Tensor) -> None:
    raise NotImplementedError("MoE routing kernel not written yet")
