# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for adamw_step (gpu/precision.py): an independent AdamW step written as one fused
elementwise pass, and a step that folds the weight decay into the gradient (Adam with L2) instead of decoupling it."""

import math

import torch

LR, BETA1, BETA2, EPS, WD, STEP = 1e-3, 0.9, 0.999, 1e-8, 0.01, 10
VARIANT = "couples the weight decay to the gradient (Adam + L2) instead of decoupling it"


def alternate(grad, param, exp_avg, exp_avg_sq):
    # as a fused kernel would: moments in lerp form, the step size and the root of the second bias correction
    # folded into scalars, the decay subtracted in the same expression as the update
    g = grad.float()
    m = torch.lerp(exp_avg, g, 1 - BETA1)
    v = exp_avg_sq * BETA2 + (g * g) * (1 - BETA2)
    step_size = LR / (1 - BETA1 ** STEP)
    inv_root_bc2 = 1.0 / math.sqrt(1 - BETA2 ** STEP)
    denom = torch.sqrt(v) * inv_root_bc2 + EPS
    p = param - (LR * WD) * param - step_size * (m / denom)
    return p, m, v


def variant(grad, param, exp_avg, exp_avg_sq):
    g = grad.float() + WD * param
    m = BETA1 * exp_avg + (1 - BETA1) * g
    v = BETA2 * exp_avg_sq + (1 - BETA2) * g * g
    p = param - LR * (m / (1 - BETA1 ** STEP)) / (torch.sqrt(v / (1 - BETA2 ** STEP)) + EPS)
    return p, m, v
