# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""MXFP4-like dequantisation: e2m1 values (table lookup) times 2**e, one exponent per block of 32 elements."""

import torch

BLOCK = 32
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]  # magnitudes of codes 0..7; codes 8..15 are their negatives


def make_inputs(shape, r):
    n, k = shape["N"], shape["K"]
    # exponents spread around 0 (wider under the 'wide' distribution), kept where bf16 holds 6 * 2**e exactly
    e = r.normal(n, k // BLOCK, scale=4.0).round().clamp(-60, 60).to(torch.int8)
    return {"codes": r.randint(0, 256, n, k // 2, dtype=torch.uint8), "exponents": e}


def reference(codes, exponents):
    n = codes.shape[0]
    table = torch.tensor(E2M1 + [-v for v in E2M1], dtype=torch.float32, device=codes.device)
    nibbles = torch.stack((codes & 15, codes >> 4), dim=-1).reshape(n, -1).long()
    values = table[nibbles]  # (N, K)
    scale = torch.exp2(exponents.float())  # (N, K/32), exact powers of two
    return (values.reshape(n, -1, BLOCK) * scale[:, :, None]).reshape(n, -1).to(torch.bfloat16)
