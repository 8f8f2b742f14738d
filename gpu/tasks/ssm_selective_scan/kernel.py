# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the scan output into y, (B, L, D) fp32."""

import torch


def kernel(x: torch.Tensor, delta: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor,
           y: torch.Tensor) -> None:
    raise NotImplementedError("selective scan kernel not written yet")
