# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the L2 norm of x into out, a 0-dimensional fp32 tensor."""

import torch


def kernel(x: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("reduction kernel not written yet")
