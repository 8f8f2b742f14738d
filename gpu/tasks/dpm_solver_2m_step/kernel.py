# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the DPM-Solver++(2M) update of every sample into out, (B, N) fp32."""

import torch


def kernel(x: torch.Tensor, denoised: torch.Tensor, prev_denoised: torch.Tensor, sigma_prev: torch.Tensor,
           sigma: torch.Tensor, sigma_next: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("DPM-Solver++(2M) kernel not written yet")
