# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): run the gated delta rule; write o (B, H, L, DV) and the final state (B, H, DV, DK), fp32.
q, k (B, H, L, DK); v (B, H, L, DV); alpha, beta (B, H, L); all fp32."""

import torch


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor,
           o: torch.Tensor, state: torch.Tensor) -> None:
    raise NotImplementedError("gated delta rule kernel not written yet")
