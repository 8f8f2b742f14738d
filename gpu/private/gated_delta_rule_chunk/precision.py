# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for gated_delta_rule_chunk (gpu/precision.py): the chunked (WY) form a GPU kernel
uses, with one triangular solve per chunk of 64 tokens, and a gated linear attention without the delta rule's
erasure (in the same chunked form, without the solve)."""

import torch

CHUNK = 64  # tokens per chunk, as the GPU kernels take them (small chunks made the long precision shape slow)
VARIANT = "no delta-rule erasure (plain gated linear attention S = a S + b v k^T)"


def _chunked(q, k, v, alpha, beta, erase):
    b, h, l, dk = k.shape
    dv = v.shape[-1]
    state = torch.zeros(b, h, dv, dk)
    o = torch.empty_like(v)
    for lo in range(0, l, CHUNK):
        hi = min(lo + CHUNK, l)
        c = hi - lo
        kc, vc, qc = k[:, :, lo:hi], v[:, :, lo:hi], q[:, :, lo:hi]
        bc = beta[:, :, lo:hi]
        g = torch.cumsum(torch.log(alpha[:, :, lo:hi]), dim=-1)  # log gamma_t within the chunk
        decay = torch.exp(g[..., :, None] - g[..., None, :])  # gamma_t / gamma_s
        strict = torch.ones(c, c, dtype=torch.bool).tril(-1)
        causal = torch.ones(c, c, dtype=torch.bool).tril()
        if erase:
            # (I + A) U = beta * (V - gamma * K S0^T), A[t, s] = beta_t (gamma_t / gamma_s) k_t . k_s for s < t
            a_mat = torch.where(strict, bc[..., :, None] * decay * (kc @ kc.transpose(-1, -2)), torch.zeros(()))
            rhs = bc[..., None] * (vc - torch.exp(g)[..., None] * (kc @ state.transpose(-1, -2)))
            u = torch.linalg.solve_triangular(torch.eye(c) + a_mat, rhs, upper=False, unitriangular=True)
        else:
            u = bc[..., None] * vc  # nothing erased: every token writes beta_t v_t
        # o_t = gamma_t S0 q_t + sum_{s <= t} (gamma_t / gamma_s) (k_s . q_t) u_s
        attn = torch.where(causal, decay * (qc @ kc.transpose(-1, -2)), torch.zeros(()))
        o[:, :, lo:hi] = torch.exp(g)[..., None] * (qc @ state.transpose(-1, -2)) + attn @ u
        # S_C = gamma_C S0 + sum_s (gamma_C / gamma_s) u_s k_s^T
        tail = torch.exp(g[..., -1:] - g)  # (B, H, c)
        state = torch.exp(g[..., -1])[..., None, None] * state + (u * tail[..., None]).transpose(-1, -2) @ kc
    return o, state


def alternate(q, k, v, alpha, beta):
    return _chunked(q, k, v, alpha, beta, erase=True)


def variant(q, k, v, alpha, beta):
    return _chunked(q, k, v, alpha, beta, erase=False)
