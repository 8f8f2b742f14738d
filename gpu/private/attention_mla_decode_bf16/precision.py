# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_mla_decode_bf16 (gpu/precision.py): a split-cache (flash-decoding)
latent attention that merges per-split partial results by their log-sum-exp, its probabilities rounded to bf16
before the value product as a tensor-core kernel takes them, and one that drops the decoupled RoPE score."""

import torch

SCALE = 192 ** -0.5
SPLIT = 256  # cache tokens per split (a flash-decoding kernel's share of the cache for one thread block)
VARIANT = "drops the decoupled RoPE score q_pe . k_pe"


def alternate(q_nope, q_pe, kv_c, k_pe):
    # one concatenated key [kv_c, k_pe] against [q_nope, q_pe]; every split keeps (max, sum, unnormalised out)
    q = torch.cat([q_nope, q_pe], dim=-1).float()  # (B, H, C + R)
    keys = torch.cat([kv_c, k_pe], dim=-1).float()  # (B, N, C + R)
    vals = kv_c.float()
    n = keys.shape[1]
    parts = []
    for lo in range(0, n, SPLIT):
        s = torch.einsum("bhd,bnd->bhn", q, keys[:, lo:lo + SPLIT]) * SCALE
        m = s.amax(dim=-1)
        e = torch.exp(s - m[..., None])
        # the sum from the fp32 probabilities, the value product from their bf16 rounding
        parts.append((m, e.sum(dim=-1), torch.einsum("bhn,bnc->bhc", e.to(torch.bfloat16).float(),
                                                      vals[:, lo:lo + SPLIT])))
    big = torch.stack([m for m, _, _ in parts]).amax(dim=0)
    den = torch.zeros_like(big)
    acc = torch.zeros(q_nope.shape, dtype=torch.float32)
    for m, l, o in parts:
        w = torch.exp(m - big)
        den = den + w * l
        acc = acc + w[..., None] * o
    return (acc / den[..., None]).to(q_nope.dtype)


def variant(q_nope, q_pe, kv_c, k_pe):
    out = torch.empty_like(q_nope)
    for i in range(q_nope.shape[0]):
        latent = kv_c[i].float()
        s = (q_nope[i].float() @ latent.T) * SCALE
        out[i] = (torch.softmax(s, dim=-1) @ latent).to(q_nope.dtype)
    return out
