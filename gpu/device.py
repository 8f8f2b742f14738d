"""What device grades a kernel, its identity for the records, and its physical peaks. Reads only: never changes
clocks, power limits or any other setting of a GPU."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess

import torch

# name fragment -> peaks: dense tensor TFLOP/s by input dtype, and memory GB/s. Where a name covers several boards
# (H100 SXM / PCIe / NVL) the largest figure stands: these bound what is physically possible, so they must never be
# below the real peak. The fp32 figure is the TF32 tensor-core peak (the most an fp32-input kernel can reach).
PEAKS: list[tuple[str, dict[str, float]]] = [
    ("GH200", {"bf16": 989.5, "fp16": 989.5, "fp8": 1979.0, "fp32": 494.7, "gbps": 4900.0}),
    ("H200", {"bf16": 989.5, "fp16": 989.5, "fp8": 1979.0, "fp32": 494.7, "gbps": 4800.0}),
    ("H100", {"bf16": 989.5, "fp16": 989.5, "fp8": 1979.0, "fp32": 494.7, "gbps": 3900.0}),
    ("H800", {"bf16": 989.5, "fp16": 989.5, "fp8": 1979.0, "fp32": 494.7, "gbps": 3350.0}),
    ("GB200", {"bf16": 2500.0, "fp16": 2500.0, "fp8": 5000.0, "fp32": 1250.0, "gbps": 8000.0}),
    ("B200", {"bf16": 2500.0, "fp16": 2500.0, "fp8": 5000.0, "fp32": 1250.0, "gbps": 8000.0}),
    ("B100", {"bf16": 1750.0, "fp16": 1750.0, "fp8": 3500.0, "fp32": 875.0, "gbps": 8000.0}),
    ("A100", {"bf16": 312.0, "fp16": 312.0, "fp8": 624.0, "fp32": 156.0, "gbps": 2039.0}),
    ("A800", {"bf16": 312.0, "fp16": 312.0, "fp8": 624.0, "fp32": 156.0, "gbps": 2039.0}),
    ("L40S", {"bf16": 366.0, "fp16": 366.0, "fp8": 733.0, "fp32": 183.0, "gbps": 864.0}),
    ("L40", {"bf16": 181.0, "fp16": 181.0, "fp8": 362.0, "fp32": 90.5, "gbps": 864.0}),
    ("L4", {"bf16": 121.0, "fp16": 121.0, "fp8": 242.5, "fp32": 60.0, "gbps": 300.0}),
    ("RTX 4090", {"bf16": 330.0, "fp16": 330.0, "fp8": 660.0, "fp32": 82.6, "gbps": 1008.0}),
    ("RTX 3090", {"bf16": 142.0, "fp16": 142.0, "fp8": 284.0, "fp32": 35.6, "gbps": 936.0}),
    ("A10", {"bf16": 125.0, "fp16": 125.0, "fp8": 250.0, "fp32": 62.5, "gbps": 600.0}),
    ("T4", {"bf16": 65.0, "fp16": 65.0, "fp8": 130.0, "fp32": 8.1, "gbps": 320.0}),
]
# Dense bf16 tensor FLOPs per SM per clock by compute-capability major, for boards not in the table.
_PER_SM_CLOCK = {7: 1024, 8: 2048, 9: 4096, 10: 8192, 12: 4096}
_UNKNOWN_GBPS = 10000.0  # above any board's memory today: the peak check then only catches absurd numbers


def pick_device(requested: str | None = None) -> str:
    """'cuda' when a GPU is usable (or asked for), else 'cpu'."""
    if requested in ("cpu", "cuda"):
        if requested == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("--device cuda asked for, but torch sees no CUDA device")
        return requested
    return "cuda" if torch.cuda.is_available() else "cpu"


def _nvidia_smi(index: int) -> dict[str, str]:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return {}
    fields = ["driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem", "power.limit"]
    try:
        out = subprocess.run([exe, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits",
                              "-i", str(index)], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return {}
    vals = [v.strip() for v in out.split(",")]
    return dict(zip(fields, vals)) if len(vals) == len(fields) else {}


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _triton_version() -> str | None:
    try:
        import triton  # noqa: PLC0415

        return triton.__version__
    except Exception:  # not installed, or broken: the record says so
        return None


def device_info(kind: str) -> dict:
    """The record of the device a grading ran on."""
    info: dict = {"kind": kind, "torch": torch.__version__, "triton": _triton_version(),
                  "python": platform.python_version()}
    if kind == "cuda":
        idx = torch.cuda.current_device()
        p = torch.cuda.get_device_properties(idx)
        smi = _nvidia_smi(idx)
        info.update({
            "name": p.name, "sm_count": p.multi_processor_count, "capability": f"{p.major}.{p.minor}",
            "memory_gb": round(p.total_memory / 2**30, 1), "l2_bytes": getattr(p, "L2_cache_size", None),
            "cuda": torch.version.cuda, "driver": smi.get("driver_version"),
            "clocks_mhz": {k: smi.get(k) for k in ("clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem")},
            "power_limit_w": smi.get("power.limit"),
        })
    else:
        info.update({"name": _cpu_model(), "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads()})
    return info


def peak(info: dict, metric: str, dtype: str) -> tuple[float | None, str]:
    """(physical peak in the task's unit, where it came from); None on a CPU, where no peak check applies."""
    if info.get("kind") != "cuda":
        return None, "cpu: no physical peak is checked"
    key = "gbps" if metric == "gbps" else ("fp32" if dtype == "fp32" else "fp8" if dtype == "fp8" else "bf16")
    for frag, table in PEAKS:
        if frag.lower() in info["name"].lower():
            return table[key], f"table entry {frag!r}"
    if key == "gbps":
        return _UNKNOWN_GBPS, "unknown board: generous memory bound"
    major = int(str(info.get("capability", "9.0")).split(".")[0])
    per = _PER_SM_CLOCK.get(major, 8192)
    try:
        mhz = float(info.get("clocks_mhz", {}).get("clocks.max.sm") or 2100)
    except ValueError:
        mhz = 2100.0
    tf = info["sm_count"] * mhz * 1e6 * per / 1e12
    tf = tf * 2 if key == "fp8" else tf / 2 if key == "fp32" else tf
    return tf, "unknown board: SM count x max clock x per-SM rate"
