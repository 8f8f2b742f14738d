# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): quantise every row of x (T, H) bf16 to fp8 e4m3 into q, with its scale (amax / 448) in
scale (T,) fp32."""

import torch


def kernel(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> None:
    raise NotImplementedError("fp8 quantisation kernel not written yet")
