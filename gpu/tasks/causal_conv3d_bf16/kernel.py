# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the causal 3x3x3 convolution of x into out, (B, CO, T, H, W) bf16."""

import torch


def kernel(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("causal conv3d kernel not written yet")
