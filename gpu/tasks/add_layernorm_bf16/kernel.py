# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write LayerNorm(x + residual) into out and x + residual into residual_out, both (T, H) bf16."""

import torch


def kernel(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
           out: torch.Tensor, residual_out: torch.Tensor) -> None:
    raise NotImplementedError("add + LayerNorm kernel not written yet")
