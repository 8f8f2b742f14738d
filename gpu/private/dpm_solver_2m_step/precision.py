# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for dpm_solver_2m_step (gpu/precision.py): the update written as a first-order step
plus a correction on the difference of the two predictions, with fp32 coefficients from log-sigmas, and the plain
first-order (DDIM-like) step that leaves the previous prediction out."""

import torch

VARIANT = "drops the second-order term (first-order step from the current prediction only)"


def alternate(x, denoised, prev_denoised, sigma_prev, sigma, sigma_next):
    # lambda = -log sigma in fp32; out = e^-h x + (1 - e^-h) d + (1 - e^-h) / (2 r) (d - d_prev)
    lp, lc, ln = -torch.log(sigma_prev), -torch.log(sigma), -torch.log(sigma_next)
    h = ln - lc
    h_last = lc - lp
    e = torch.exp(-h)
    one_minus = -torch.expm1(-h)
    corr = one_minus * h / (2.0 * h_last)
    out = torch.empty_like(x)
    n = x.shape[1]
    for c in range(0, n, 256):
        s = slice(c, c + 256)
        d = denoised[:, s]
        acc = e[:, None] * x[:, s] + one_minus[:, None] * d
        out[:, s] = acc + corr[:, None] * (d - prev_denoised[:, s])
    return out


def variant(x, denoised, prev_denoised, sigma_prev, sigma, sigma_next):
    ratio = (sigma_next / sigma)[:, None]
    return ratio * x + (1.0 - ratio) * denoised
