# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for kl_distill_loss (gpu/precision.py): a one-sweep online formulation over
vocabulary chunks, and one that forgets the temperature."""

import math

import torch

TAU = 2.0
CHUNK = 1024
LOG2E = 1.0 / math.log(2.0)
LN2 = math.log(2.0)
VARIANT = "ignores the temperature (softmaxes of the raw logits, no tau^2)"


def alternate(student_logits, teacher_logits):
    # one sweep, as a fused kernel does it: with a = teacher / tau and b = student / tau, running maxima ma, mb,
    # rescaled sums za = sum exp(a - ma), zb = sum exp(b - mb) and w = sum exp(a - ma) * ((a - ma) - (b - mb)),
    # all rebased whenever a maximum grows. Then KL = w / za - log za + log zb: only small numbers meet at the end.
    # Everything runs in base 2 (a, b pre-scaled by log2(e) / tau, exp2 and log2), as fast kernels do.
    a_all = teacher_logits.float() * (LOG2E / TAU)
    b_all = student_logits.float() * (LOG2E / TAU)
    t, v = a_all.shape
    ma = torch.full((t,), -math.inf)
    mb = torch.full((t,), -math.inf)
    za, zb, w = torch.zeros(t), torch.zeros(t), torch.zeros(t)
    for c in range(0, v, CHUNK):
        a, b = a_all[:, c:c + CHUNK], b_all[:, c:c + CHUNK]
        na = torch.maximum(ma, a.amax(dim=1))
        nb = torch.maximum(mb, b.amax(dim=1))
        first = torch.isinf(ma)
        ra = torch.where(first, torch.zeros(t), torch.exp2(ma - na))
        shift = torch.where(first, torch.zeros(t), (ma - na) - (mb - nb))
        ea = torch.exp2(a - na[:, None])
        w = ra * (w + za * shift) + (ea * ((a - na[:, None]) - (b - nb[:, None]))).sum(dim=1)
        za = za * ra + ea.sum(dim=1)
        zb = zb * torch.where(first, torch.zeros(t), torch.exp2(mb - nb)) + torch.exp2(b - nb[:, None]).sum(dim=1)
        ma, mb = na, nb
    kl = (w / za - torch.log2(za) + torch.log2(zb)) * LN2
    return TAU * TAU * kl


def variant(student_logits, teacher_logits):
    log_p = torch.log_softmax(teacher_logits.float(), dim=-1)
    log_q = torch.log_softmax(student_logits.float(), dim=-1)
    return (log_p.exp() * (log_p - log_q)).sum(dim=-1)
