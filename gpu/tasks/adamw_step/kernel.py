# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): apply one AdamW step to param, exp_avg and exp_avg_sq in place (grad is read-only)."""

import torch


def kernel(grad: torch.Tensor, param: torch.Tensor, exp_avg: torch.Tensor, exp_avg_sq: torch.Tensor) -> None:
    raise NotImplementedError("AdamW kernel not written yet")
