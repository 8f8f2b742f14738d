# task: softmax_fp32
# expect: skipped_no_gpu
# cpu-only: on a GPU this one builds for real and is graded like any kernel
"""A CUDA C++ submission: it cannot be built or run without a GPU."""
import torch
from torch.utils.cpp_extension import load_inline

_mod = None


def kernel(x, out):
    global _mod
    if _mod is None:
        _mod = load_inline("kb_softmax", cpp_sources="torch::Tensor f(torch::Tensor x) { return torch::softmax(x, -1); }",
                           functions=["f"])
    out.copy_(_mod.f(x))
