# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the RMSNorm input gradient into dx, (T, H) bf16, and the weight gradient into dweight,
(H,) bf16."""

import torch


def kernel(x: torch.Tensor, weight: torch.Tensor, dy: torch.Tensor, dx: torch.Tensor, dweight: torch.Tensor) -> None:
    raise NotImplementedError("RMSNorm backward kernel not written yet")
