# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the WKV output into y, (B, T, C) fp32. w, u are (C,); k, v are (B, T, C); all fp32."""

import torch


def kernel(w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor, y: torch.Tensor) -> None:
    raise NotImplementedError("WKV kernel not written yet")
