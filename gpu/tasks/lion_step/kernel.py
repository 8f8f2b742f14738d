# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): apply one Lion step to param and exp_avg in place (grad is read-only)."""

import torch


def kernel(grad: torch.Tensor, param: torch.Tensor, exp_avg: torch.Tensor) -> None:
    raise NotImplementedError("Lion kernel not written yet")
