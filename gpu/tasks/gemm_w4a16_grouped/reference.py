# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""x @ W.T where W is 4-bit asymmetric, group size 128: W = (code - zero) * scale, dequantised in fp32."""

import torch

GROUP = 128


def make_inputs(shape, r):
    m, n, k = shape["M"], shape["N"], shape["K"]
    g = k // GROUP
    s = 1.0 / (6.5 * k ** 0.5)  # |code - zero| is about 6.5 (rms): keeps the outputs near unit size
    return {
        "x": r.normal(m, k, dtype=torch.bfloat16),
        "qweight": r.randint(0, 256, n, k // 2, dtype=torch.uint8),
        "scales": (r.uniform(n, g, low=0.5, high=1.5) * s).to(torch.bfloat16),
        "zeros": r.randint(0, 16, n, g, dtype=torch.uint8),
    }


def unpack(qweight):
    """(N, K/2) uint8 -> (N, K) codes 0..15: low nibble first."""
    n = qweight.shape[0]
    return torch.stack((qweight & 15, qweight >> 4), dim=-1).reshape(n, -1)


def dequantize(qweight, scales, zeros):
    codes = unpack(qweight).float()
    n, k = codes.shape
    w = (codes.reshape(n, k // GROUP, GROUP) - zeros.float()[:, :, None]) * scales.float()[:, :, None]
    return w.reshape(n, k)


def reference(x, qweight, scales, zeros):
    return (x.float() @ dequantize(qweight, scales, zeros).t()).to(torch.bfloat16)


def eager(x, qweight, scales, zeros):
    """What a user without a fused kernel calls: dequantise to bf16, then a bf16 matmul (the audit baseline)."""
    return x @ dequantize(qweight, scales, zeros).to(torch.bfloat16).t()
