# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for dequant_block_fp4 (gpu/precision.py): e2m1 decoded from its bit fields and the
scale built from exponent bits, as a kernel would; and a kernel that drops the block scales."""

import torch

BLOCK = 32
VARIANT = "ignores the per-block power-of-two scales"


def _decode(codes):
    # sign | 2-bit exponent | 1-bit mantissa: exponent field 0 is subnormal (0 or 0.5), else (1 + m/2) * 2**(e-1)
    n = codes.shape[0]
    c = torch.empty(n, 2 * codes.shape[1], dtype=torch.int32)
    c[:, 0::2] = codes.int() % 16
    c[:, 1::2] = codes.int() // 16
    sign = 1.0 - 2.0 * (c // 8).float()
    ef = (c // 2) % 4
    mf = (c % 2).float()
    mag = torch.where(ef == 0, 0.5 * mf, (1.0 + 0.5 * mf) * torch.pow(2.0, (ef - 1).float()))
    return sign * mag


def alternate(codes, exponents):
    n = codes.shape[0]
    # 2**e written straight into an fp32 exponent field: bits (e + 127) << 23
    scale = ((exponents.int() + 127) << 23).view(torch.float32)
    out = _decode(codes).reshape(n, -1, BLOCK) * scale[:, :, None]
    return out.reshape(n, -1).to(torch.bfloat16)


def variant(codes, exponents):
    return _decode(codes).to(torch.bfloat16)
