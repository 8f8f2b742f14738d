# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the sampled token id of every row into token, (B,) int64. k is a Python int."""

import torch


def kernel(logits: torch.Tensor, u: torch.Tensor, k: int, token: torch.Tensor) -> None:
    raise NotImplementedError("sampling kernel not written yet")
