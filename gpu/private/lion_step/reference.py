# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""One Lion step (sign of the beta1 interpolation, decoupled weight decay, beta2 momentum), bf16 gradients, fp32
state; returns new tensors."""

import torch

LR, BETA1, BETA2, WD = 2e-4, 0.9, 0.99, 0.5
MARGIN = 1e-4  # |beta1 * exp_avg + (1 - beta1) * grad| is kept at least this large: no sign decided by rounding


def make_inputs(shape, r):
    n = shape["N"]
    grad = r.normal(n, dtype=torch.bfloat16, scale=0.1)
    exp_avg = r.normal(n, scale=0.01)
    # where the direction would be a near-tie, push the momentum away from it (by 2 * MARGIN in c)
    c = BETA1 * exp_avg + (1 - BETA1) * grad.float()
    away = torch.where(c >= 0, 2 * MARGIN / BETA1, -2 * MARGIN / BETA1)
    exp_avg = torch.where(c.abs() < MARGIN, exp_avg + away, exp_avg)
    return {"grad": grad, "param": r.normal(n), "exp_avg": exp_avg}


def reference(grad, param, exp_avg):
    g = grad.float()
    c = BETA1 * exp_avg + (1 - BETA1) * g
    p = param * (1 - LR * WD) - LR * torch.sign(c)
    m = BETA2 * exp_avg + (1 - BETA2) * g
    return p, m
