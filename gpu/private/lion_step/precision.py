# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for lion_step (gpu/precision.py): the update in lerp form with the decay folded
into the step, and one that takes the direction from the updated (beta2) momentum."""

import torch

LR, BETA1, BETA2, WD = 2e-4, 0.9, 0.99, 0.5
VARIANT = "takes the sign from the new beta2 momentum instead of the beta1 interpolation"


def alternate(grad, param, exp_avg):
    g = grad.float()
    c = exp_avg + (1 - BETA1) * (g - exp_avg)  # lerp(exp_avg, g, 1 - beta1)
    direction = (c > 0).float() - (c < 0).float()
    p = param - LR * (WD * param + direction)
    m = exp_avg + (1 - BETA2) * (g - exp_avg)
    return p, m


def variant(grad, param, exp_avg):
    g = grad.float()
    m = BETA2 * exp_avg + (1 - BETA2) * g
    p = param * (1 - LR * WD) - LR * torch.sign(m)
    return p, m
