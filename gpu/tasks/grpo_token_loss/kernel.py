# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the masked clipped policy loss into loss, (B, L) fp32, and its mean over the masked-in
tokens into loss_mean, a 0-dimensional fp32 tensor."""

import torch


def kernel(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor,
           loss: torch.Tensor, loss_mean: torch.Tensor) -> None:
    raise NotImplementedError("GRPO loss kernel not written yet")
