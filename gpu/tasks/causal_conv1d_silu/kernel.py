# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write SiLU(causal depthwise conv1d(x) + bias) into out, (B, D, L) bf16."""

import torch


def kernel(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("causal conv1d kernel not written yet")
