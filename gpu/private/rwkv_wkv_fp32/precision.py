# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for rwkv_wkv_fp32 (gpu/precision.py): a chunked form that evaluates every token of
a chunk at once from a per-row maximum over an exponent matrix plus the carried state, and one that leaves out the
current token's bonus u."""

import torch

CHUNK = 5
VARIANT = "no bonus on the current token (u ignored)"


def _chunked(w, u, k, v):
    b, t, c = k.shape
    num = torch.zeros(b, c)
    den = torch.zeros(b, c)
    top = torch.full((b, c), float("-inf"))  # carried sums are relative to e^top: the state after token lo - 1
    y = torch.empty_like(k)
    for lo in range(0, t, CHUNK):
        hi = min(lo + CHUNK, t)
        n = hi - lo
        kc, vc = k[:, lo:hi], v[:, lo:hi]  # (B, n, C)
        tt = torch.arange(n, dtype=torch.float32)
        lag = (tt[:, None] - 1 - tt[None, :])[None, :, :, None]  # t - 1 - i, (1, n, n, 1)
        expo = lag * w + kc[:, None, :, :]  # (B, n, n, C): row t, column i
        diag = torch.eye(n, dtype=torch.bool)[None, :, :, None]
        expo = torch.where(diag, (u + kc)[:, :, None, :], expo)
        expo = expo.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril()[None, :, :, None], float("-inf"))
        carry = top[:, None, :] + tt[None, :, None] * w  # (B, n, C): the state decayed to each row
        m = torch.maximum(expo.amax(dim=2), carry)
        e = torch.exp(expo - m[:, :, None, :])
        ec = torch.exp(carry - m)
        y[:, lo:hi] = ((e * vc[:, None, :, :]).sum(dim=2) + ec * num[:, None, :]) / (e.sum(dim=2) + ec * den[:, None, :])
        # new state after token hi - 1: sum over the chunk of e^((hi-1-i) w + k_i) v_i plus the decayed carry
        last = (n - 1 - tt)[None, :, None] * w + kc  # (B, n, C)
        carried = top + n * w
        m = torch.maximum(last.amax(dim=1), carried)
        el = torch.exp(last - m[:, None, :])
        ec = torch.exp(carried - m)
        num = (el * vc).sum(dim=1) + ec * num
        den = el.sum(dim=1) + ec * den
        top = m
    return y


def alternate(w, u, k, v):
    return _chunked(w, u, k, v)


def variant(w, u, k, v):
    return _chunked(w, torch.zeros_like(u), k, v)
