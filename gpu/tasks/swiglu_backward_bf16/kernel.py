# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the gradients of silu(gate) * up into dgate and dup, both (T, F) bf16."""

import torch


def kernel(gate: torch.Tensor, up: torch.Tensor, dy: torch.Tensor, dgate: torch.Tensor, dup: torch.Tensor) -> None:
    raise NotImplementedError("SwiGLU backward kernel not written yet")
