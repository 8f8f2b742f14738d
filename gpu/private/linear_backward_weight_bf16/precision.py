# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for linear_backward_weight_bf16 (gpu/precision.py): split-K over token chunks with
fp32 partial products summed in fp32, and one that reads both token-major buffers as if they were stored
feature-major (the layout of the usual K-contiguous GEMM)."""

import torch

SPLIT = 48  # tokens per split-K chunk
VARIANT = "reads dy and x as feature-major (O, T) and (I, T) buffers instead of token-major"


def alternate(dy, x):
    t = dy.shape[0]
    acc = torch.zeros(dy.shape[1], x.shape[1], dtype=torch.float32)
    for c in range(0, t, SPLIT):
        a, b = dy[c:c + SPLIT].float(), x[c:c + SPLIT].float()
        acc += (a[:, :, None] * b[:, None, :]).sum(dim=0)  # the chunk's outer products, summed token by token
    return acc.to(torch.bfloat16)


def variant(dy, x):
    t, o = dy.shape
    i = x.shape[1]
    return (dy.reshape(o, t).float() @ x.reshape(i, t).float().t()).to(torch.bfloat16)
