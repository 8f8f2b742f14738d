"""Correctness checks the grader applies in its own process: tolerances by dtype, poison, unchanged inputs."""

from __future__ import annotations

import math

import torch

from gpu.models import KernelTask
from gpu.timing import poison_  # noqa: F401  (the grader poisons with the worker's function)

# (atol, rtol) by output dtype; integers and bools are compared exactly.
DEFAULT_TOLERANCE = {
    torch.float32: (1e-4, 1e-4),
    torch.float64: (1e-6, 1e-6),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1e-2, 2e-2),
}


def tolerance_for(task: KernelTask, name: str, dtype: torch.dtype) -> tuple[float, float] | None:
    """(atol, rtol), or None for an exact comparison."""
    if name in task.tolerance:
        return task.tolerance[name].atol, task.tolerance[name].rtol
    if dtype in DEFAULT_TOLERANCE:
        return DEFAULT_TOLERANCE[dtype]
    if dtype.is_floating_point:  # fp8 outputs: as loose as bf16
        return DEFAULT_TOLERANCE[torch.bfloat16]
    return None


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.detach().contiguous().reshape(-1).view(torch.uint8)


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(bits(a), bits(b))


def compare(task: KernelTask, name: str, got: torch.Tensor, want: torch.Tensor) -> str | None:
    """None when `got` matches `want`; else a one-line reason."""
    if got.shape != want.shape or got.dtype != want.dtype or got.device != want.device:
        return (f"{name}: got {tuple(got.shape)} {got.dtype} on {got.device}, "
                f"want {tuple(want.shape)} {want.dtype} on {want.device}")
    measured = getattr(task, "precision", None)
    if measured is not None and not measured.outputs[name].exact:
        return _within_measured(name, got, want, measured.outputs[name].tolerance)
    tol = None if measured is not None else tolerance_for(task, name, want.dtype)
    if tol is None:
        bad = got != want
        if bool(bad.any()):
            n = int(bad.sum())
            idx = tuple(int(i) for i in bad.nonzero()[0]) if got.dim() else ()
            return (f"{name}: {n} of {got.numel()} elements differ (exact match needed); first at {idx}: "
                    f"got {got[idx].item()} want {want[idx].item()}")
        return None
    atol, rtol = tol
    g, w = got.double(), want.double()
    nan_got, nan_want = torch.isnan(g), torch.isnan(w)
    if bool((nan_got & ~nan_want).any()):
        n = int((nan_got & ~nan_want).sum())
        return f"{name}: {n} NaN elements where the reference has a number (unwritten or invalid output)"
    finite = ~nan_want
    close = torch.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    bad = ~close & finite
    if bool(bad.any()):
        n = int(bad.sum())
        err = (g - w).abs()
        err = torch.where(bad, err, torch.zeros_like(err))
        flat = int(err.reshape(-1).argmax())
        return (f"{name}: {n} of {got.numel()} elements outside atol={atol:g} rtol={rtol:g}; "
                f"worst |err|={err.reshape(-1)[flat].item():.3g} (got {g.reshape(-1)[flat].item():.6g}, "
                f"want {w.reshape(-1)[flat].item():.6g})")
    return None


def _within_measured(name: str, got: torch.Tensor, want: torch.Tensor, tol: float) -> str | None:
    """The measured rule (gpu/precision.py): |got - want| <= tol * (|want| + mean |want|) everywhere."""
    g, w = got.double(), want.double()
    nan_got, nan_want = torch.isnan(g), torch.isnan(w)
    if bool((nan_got & ~nan_want).any()):
        n = int((nan_got & ~nan_want).sum())
        return f"{name}: {n} NaN elements where the reference has a number (unwritten or invalid output)"
    finite = torch.isfinite(w)
    if bool((~finite & ~nan_want & (g != w)).any()):
        return f"{name}: an infinity of the reference is not matched"
    scale = float(w[finite].abs().mean()) if bool(finite.any()) else 1.0
    scale = scale or 1.0
    err = torch.where(finite, (g - w).abs() / (w.abs() + scale), torch.zeros_like(g))
    err = torch.nan_to_num(err, nan=math.inf)
    worst = float(err.max()) if err.numel() else 0.0
    if worst > tol:
        n = int((err > tol).sum())
        flat = int(err.reshape(-1).argmax())
        return (f"{name}: {n} of {got.numel()} elements off by more than the measured tolerance {tol:g} x "
                f"(|want| + {scale:.3g}); worst {worst:.3g} (got {g.reshape(-1)[flat].item():.6g}, "
                f"want {w.reshape(-1)[flat].item():.6g})")
    return None
