"""Correctness checks the grader applies in its own process: the measured tolerances, poison, unchanged inputs."""

from __future__ import annotations

import torch

from gpu.models import KernelTask
from gpu.precision import normalised
from gpu.timing import poison_  # noqa: F401  (the grader poisons with the worker's function)


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.detach().contiguous().reshape(-1).view(torch.uint8)


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(bits(a), bits(b))


def compare(task: KernelTask, name: str, got: torch.Tensor, want: torch.Tensor) -> str | None:
    """None when `got` matches `want`; else a one-line reason."""
    if got.shape != want.shape or got.dtype != want.dtype or got.device != want.device:
        return (f"{name}: got {tuple(got.shape)} {got.dtype} on {got.device}, "
                f"want {tuple(want.shape)} {want.dtype} on {want.device}")
    rule = task.precision.outputs[name]  # the loader admits no task without a measured [precision] section
    if not rule.exact:
        return _within_measured(name, got, want, rule.tolerance)
    bad = got != want
    if bool(bad.any()):
        n = int(bad.sum())
        idx = tuple(int(i) for i in bad.nonzero()[0]) if got.dim() else ()
        return (f"{name}: {n} of {got.numel()} elements differ (exact match needed); first at {idx}: "
                f"got {got[idx].item()} want {want[idx].item()}")
    return None


def _within_measured(name: str, got: torch.Tensor, want: torch.Tensor, tol: float) -> str | None:
    """The measured rule (gpu/precision.py): |got - want| <= tol * (|want| + mean |want|) everywhere."""
    g, w = got.double(), want.double()  # fp8 has no isnan or isfinite of its own
    nan_got, nan_want = torch.isnan(g), torch.isnan(w)
    if bool((nan_got & ~nan_want).any()):
        n = int((nan_got & ~nan_want).sum())
        return f"{name}: {n} NaN elements where the reference has a number (unwritten or invalid output)"
    if bool((~torch.isfinite(w) & ~nan_want & (g != w)).any()):
        return f"{name}: an infinity of the reference is not matched"
    err, scale = normalised(got, want)
    worst = float(err.max()) if err.numel() else 0.0
    if worst > tol:
        n = int((err > tol).sum())
        flat = int(err.reshape(-1).argmax())
        return (f"{name}: {n} of {got.numel()} elements off by more than the measured tolerance {tol:g} x "
                f"(|want| + {scale:.3g}); worst {worst:.3g} (got {g.reshape(-1)[flat].item():.6g}, "
                f"want {w.reshape(-1)[flat].item():.6g})")
    return None
