"""The random source a task's make_inputs(shape, r) draws from: one seed, one input distribution, one device."""

from __future__ import annotations

import torch

DTYPES = {
    "fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
    "fp8": torch.float8_e4m3fn, "int32": torch.int32, "int64": torch.int64,
}


class Rand:
    """normal() follows the distribution: 'normal' is N(0,1)*scale, 'wide' is 4x wider, 'outliers' adds rare
    spikes of 16x. uniform(), randint() and randperm() ignore it. Everything comes from one seeded generator."""

    def __init__(self, seed: int, dist: str = "normal", device: str | torch.device = "cpu"):
        self.device = torch.device(device)
        self.dist = dist
        self.gen = torch.Generator(device=self.device)
        self.gen.manual_seed(seed)

    def normal(self, *size: int, dtype: torch.dtype = torch.float32, scale: float = 1.0) -> torch.Tensor:
        x = torch.randn(*size, generator=self.gen, device=self.device, dtype=torch.float32) * scale
        if self.dist == "wide":
            x = x * 4.0
        elif self.dist == "outliers":
            spikes = torch.rand(*size, generator=self.gen, device=self.device) < (1.0 / 256)
            x = torch.where(spikes, x * 16.0, x)
        return x.to(dtype)

    def uniform(self, *size: int, low: float = 0.0, high: float = 1.0,
                dtype: torch.dtype = torch.float32) -> torch.Tensor:
        u = torch.rand(*size, generator=self.gen, device=self.device, dtype=torch.float32)
        return (low + (high - low) * u).to(dtype)

    def randint(self, low: int, high: int, *size: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
        return torch.randint(low, high, size, generator=self.gen, device=self.device, dtype=dtype)

    def randperm(self, n: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
        return torch.randperm(n, generator=self.gen, device=self.device, dtype=dtype)
