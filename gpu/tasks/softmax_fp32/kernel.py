# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write softmax(x) over the last dimension into out (same shape, fp32).
Triton (import triton) or CUDA C++ (torch.utils.cpp_extension.load_inline) are both fine."""

import torch


def kernel(x: torch.Tensor, out: torch.Tensor) -> None:
    raise NotImplementedError("softmax kernel not written yet")
