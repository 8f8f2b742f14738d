# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The gated delta rule (Gated DeltaNet), one time step at a time in fp32: a decayed state that erases what it
stores under the current key before writing the new value there."""

import torch


def make_inputs(shape, r):
    b, h, l, dk, dv = shape["B"], shape["H"], shape["L"], shape["DK"], shape["DV"]
    k = r.normal(b, h, l, dk)
    return {
        "q": r.normal(b, h, l, dk, scale=dk ** -0.5),
        "k": k / k.norm(dim=-1, keepdim=True),  # unit keys, as the model L2-normalises them
        "v": r.normal(b, h, l, dv),
        "alpha": r.uniform(b, h, l, low=0.85, high=1.0),
        "beta": r.uniform(b, h, l, low=0.05, high=0.95),
    }


def reference(q, k, v, alpha, beta):
    b, h, l, dk = k.shape
    state = torch.zeros(b, h, v.shape[-1], dk, dtype=torch.float32, device=k.device)  # S, (DV, DK)
    o = torch.empty_like(v)
    for t in range(l):
        kt, vt = k[:, :, t], v[:, :, t]
        a, bt = alpha[:, :, t, None, None], beta[:, :, t, None, None]
        sk = torch.einsum("bhvk,bhk->bhv", state, kt)  # S_{t-1} k_t
        # S_t = a_t S_{t-1} (I - b_t k_t k_t^T) + b_t v_t k_t^T
        state = a * (state - bt * sk[..., :, None] * kt[..., None, :]) + bt * vt[..., :, None] * kt[..., None, :]
        o[:, :, t] = torch.einsum("bhvk,bhk->bhv", state, q[:, :, t])
    return o, state
