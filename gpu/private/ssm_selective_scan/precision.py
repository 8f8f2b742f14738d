# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for ssm_selective_scan (gpu/precision.py): an independent chunked scan (inside a
chunk of 8 steps, every state from the chunk's starting state and the inputs through cumulative log-decays, the
chunk's last state carried on), and one that is not selective: it keeps the first step's B and C for every step."""

import torch

CHUNK = 8
VARIANT = "not selective in B and C: the first time step's b and c are used at every step"


def alternate(x, delta, a, b, c):
    bsz, l, d = x.shape
    h = torch.zeros(bsz, d, a.shape[1])
    y = torch.empty_like(x)
    for c0 in range(0, l, CHUNK):
        c1 = min(c0 + CHUNK, l)
        dt = delta[:, c0:c1]                                         # (B, T, D)
        cum = (dt[..., None] * a).cumsum(dim=1)                      # (B, T, D, N): log of the decay since c0
        u = (dt * x[:, c0:c1])[..., None] * b[:, c0:c1, None, :]     # (B, T, D, N)
        t = torch.arange(c1 - c0)
        causal = (t[:, None] >= t[None, :])[None, :, :, None, None]
        seg = cum[:, :, None] - cum[:, None, :]                      # (B, T, S, D, N): decay from s to t
        w = torch.where(causal, torch.exp(torch.where(causal, seg, torch.zeros_like(seg))), torch.zeros_like(seg))
        states = torch.exp(cum) * h[:, None] + (w * u[:, None]).sum(dim=2)
        y[:, c0:c1] = (states * c[:, c0:c1, None, :]).sum(dim=-1)
        h = states[:, -1]
    return y


def variant(x, delta, a, b, c):
    bsz, l, d = x.shape
    h = torch.zeros(bsz, d, a.shape[1])
    y = torch.empty_like(x)
    for t in range(l):
        dt = delta[:, t, :, None]
        h = torch.exp(dt * a) * h + (dt * x[:, t, :, None]) * b[:, 0, None, :]
        y[:, t, :] = (h * c[:, 0, None, :]).sum(dim=-1)
    return y
