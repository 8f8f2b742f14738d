# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for causal_conv3d_bf16 (gpu/precision.py): the convolution as 27 shifted matrix
products accumulated in fp32 (the implicit-GEMM order, frame index clamped), and one that pads the past with zero
frames instead of repeating the first frame."""

import torch

VARIANT = "pads the past with zero frames instead of copies of the first frame"


def _taps(x, weight, bias, frames):
    """frames(t) -> the input frame index read by temporal tap 0..2 for output frame t, or None for zeros."""
    b, ci, t, h, w = x.shape
    co = weight.shape[0]
    xf = torch.nn.functional.pad(x.float(), (1, 1, 1, 1))  # zero border in height and width
    wf = weight.float()
    out = bias.float()[None, :, None, None, None].expand(b, co, t, h, w).clone()
    for i in range(3):
        src = [frames(tt, i) for tt in range(t)]
        picked = torch.stack([xf[:, :, s] if s is not None else torch.zeros_like(xf[:, :, 0]) for s in src], dim=2)
        for j in range(3):
            for k in range(3):
                tile = picked[:, :, :, j:j + h, k:k + w]  # (b, ci, t, h, w)
                out += torch.einsum("oc,bcthw->bothw", wf[:, :, i, j, k], tile)
    return out.to(torch.bfloat16)


def alternate(x, weight, bias):
    return _taps(x, weight, bias, lambda t, i: max(t - 2 + i, 0))


def variant(x, weight, bias):
    return _taps(x, weight, bias, lambda t, i: t - 2 + i if t - 2 + i >= 0 else None)
