# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for rwkv_wkv_fp32 (gpu/precision.py): a chunked scan in fp32, the way a chunked GPU
kernel splits the recurrence: every chunk's own sums at once (each relative to its own maximum exponent), then a
short sequential pass that hands the state from chunk to chunk, then every token's output from its chunk's sums
and the state entering the chunk; and one that leaves out the current token's bonus u. The running maximum
exponent is kept as the token that set it (k_g + (t - g) w, recomputed), so it does not drift."""

import torch

CHUNK = 64  # tokens per chunk
PAD_K = -1e30  # key of the padding after the last token: e^(PAD_K + anything finite) is 0
VARIANT = "no bonus on the current token (u ignored)"


def _chunked(w, u, k, v):
    b, t, c = k.shape
    n = min(CHUNK, t)  # tokens per chunk
    nc = -(-t // n)
    pad = nc * n - t
    kc = torch.cat([k, k.new_full((b, pad, c), PAD_K)], dim=1).view(b, nc, n, c)
    vc = torch.cat([v, v.new_zeros(b, pad, c)], dim=1).view(b, nc, n, c)
    tt = torch.arange(n, dtype=torch.float32)
    # 1. inside every chunk: row j (a token), column i (a token of the same chunk), exponent of i's weight in y_j
    lag = (tt[:, None] - 1 - tt[None, :])[:, :, None]  # j - 1 - i, (n, n, 1)
    expo = lag * w + kc[:, :, None, :, :]  # (B, NC, n, n, C)
    diag = torch.eye(n, dtype=torch.bool)[:, :, None]
    expo = torch.where(diag, (u + kc)[:, :, :, None, :], expo)
    expo = expo.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril()[:, :, None], float("-inf"))
    m_in = expo.amax(dim=3)  # (B, NC, n, C)
    e = torch.exp(expo - m_in[:, :, :, None, :])
    a_num = (e * vc[:, :, None, :, :]).sum(dim=3)
    a_den = e.sum(dim=3)
    # each chunk's part of the state after its last token: exponents (n - 1 - i) w + k_i, maximum at token g
    last = (n - 1 - tt)[:, None] * w + kc  # (B, NC, n, C)
    m_last, i_last = last.max(dim=2)
    g_last = i_last + n * torch.arange(nc)[:, None]  # (B, NC, C): absolute index of the maximum's token
    k_last = kc.gather(2, i_last[:, :, None, :]).squeeze(2)
    el = torch.exp(last - m_last[:, :, None, :])
    s_num, s_den = (el * vc).sum(dim=2), el.sum(dim=2)
    # 2. the state entering every chunk, handed on sequentially: sums relative to e^top, top = k_g + (end - g) w
    num, den = torch.zeros(b, c), torch.zeros(b, c)
    k_top = torch.full((b, c), float("-inf"))
    g_top = torch.zeros(b, c, dtype=torch.int64)
    enter = []
    for j in range(nc):
        enter.append((num, den, k_top, g_top))
        end = j * n + n - 1
        carried = k_top + (end - g_top) * w  # the entering state decayed to the chunk's last token
        m = torch.maximum(m_last[:, j], carried)
        fresh, old = torch.exp(m_last[:, j] - m), torch.exp(carried - m)
        num, den = fresh * s_num[:, j] + old * num, fresh * s_den[:, j] + old * den
        newer = m_last[:, j] >= carried
        k_top, g_top = torch.where(newer, k_last[:, j], k_top), torch.where(newer, g_last[:, j], g_top)
    num0, den0, k0, g0 = (torch.stack(z, dim=1)[:, :, None, :] for z in zip(*enter))  # (B, NC, 1, C)
    # 3. every token p: its chunk's own sums plus the entering state decayed to token p - 1
    pos = (n * torch.arange(nc)[:, None] + torch.arange(n))[:, :, None]  # (NC, n, 1)
    carry = k0 + (pos - 1 - g0) * w  # (B, NC, n, C)
    m = torch.maximum(m_in, carry)
    f_in, f_st = torch.exp(m_in - m), torch.exp(carry - m)
    y = (f_in * a_num + f_st * num0) / (f_in * a_den + f_st * den0)
    return y.reshape(b, nc * n, c)[:, :t].contiguous()


def alternate(w, u, k, v):
    return _chunked(w, u, k, v)


def variant(w, u, k, v):
    return _chunked(w, torch.zeros_like(u), k, v)
