# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""One AdamW step (decoupled weight decay), bf16 gradients, fp32 state; returns new tensors."""

import torch

LR, BETA1, BETA2, EPS, WD, STEP = 1e-3, 0.9, 0.999, 1e-8, 0.01, 10


def make_inputs(shape, r):
    n = shape["N"]
    return {"grad": r.normal(n, dtype=torch.bfloat16, scale=0.1), "param": r.normal(n),
            "exp_avg": r.normal(n, scale=0.01), "exp_avg_sq": r.uniform(n, low=1e-5, high=1e-2)}


def reference(grad, param, exp_avg, exp_avg_sq):
    g = grad.float()
    p = param * (1 - LR * WD)
    m = BETA1 * exp_avg + (1 - BETA1) * g
    v = BETA2 * exp_avg_sq + (1 - BETA2) * g * g
    p = p - LR * (m / (1 - BETA1 ** STEP)) / (torch.sqrt(v / (1 - BETA2 ** STEP)) + EPS)
    return p, m, v
