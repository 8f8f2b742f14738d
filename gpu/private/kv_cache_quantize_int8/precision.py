# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for kv_cache_quantize_int8 (gpu/precision.py): a chunked amax, plain fp32 IEEE
divisions and round-half-even by the fp32 magic-number trick, as a CUDA kernel would (it agrees exactly with the
reference's fp64-then-fp32 quotients); and a kernel that quantises with one scale per token shared by all heads."""

import torch

QMAX = 127.0
MIN_AMAX = 1e-6
MAGIC = 12582912.0  # 1.5 * 2**23: adding and subtracting it rounds an fp32 of magnitude < 2**22 half to even
CHUNK = 8
VARIANT = "one scale per token shared by all heads instead of one per (token, head)"


def _amax(x):
    xf = x.float()
    m = torch.zeros(xf.shape[:-1], dtype=torch.float32)
    for c in range(0, xf.shape[-1], CHUNK):
        m = torch.maximum(m, xf[..., c:c + CHUNK].abs().amax(dim=-1))
    return torch.maximum(m, torch.full_like(m, MIN_AMAX))


def _quantize(x, amax):
    scale = amax / torch.full_like(amax, QMAX)  # fp32 division, correctly rounded on the CPU
    y = x.float() / scale[..., None]
    y = (y + MAGIC) - MAGIC
    return torch.clamp(y, -QMAX, QMAX).to(torch.int8), scale


def alternate(k, v):
    return (*_quantize(k, _amax(k)), *_quantize(v, _amax(v)))


def variant(k, v):
    def per_token(x):
        a = _amax(x).amax(dim=-1, keepdim=True).expand(x.shape[:-1]).contiguous()
        return _quantize(x, a)
    return (*per_token(k), *per_token(v))
