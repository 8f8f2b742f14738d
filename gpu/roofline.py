"""Roofline times: the least time a named GPU needs for one call, from the task's work formulas alone. A task is
sized so that this time at its largest graded shape is above ROOFLINE_FLOOR_S: below it, launch overhead rather
than the kernel would decide the score."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from gpu.formulas import evaluate

SPECS_FILE = Path(__file__).parent / "gpu_specs.toml"
DEFAULT_GPU = "H100 SXM"
ROOFLINE_FLOOR_S = 250e-6


def specs() -> dict[str, dict[str, float]]:
    """name -> {tflops_<dtype>: dense TFLOP/s, gbps: memory GB/s}, from gpu_specs.toml."""
    with SPECS_FILE.open("rb") as fh:
        return tomllib.load(fh)["gpu"]


def compute_key(dtype: str) -> str:
    """Which peak a task's arithmetic runs at: its dtype's tensor-core rate; fp32 at the plain fp32 rate, because a
    TF32 product would not meet an fp32 tolerance."""
    return {"fp32": "tflops_fp32", "fp8": "tflops_fp8", "int": "tflops_int8"}.get(dtype, "tflops_bf16")


def roofline_s(task, shape: dict, gpu: str = DEFAULT_GPU) -> tuple[float, str]:
    """(seconds, 'compute'|'memory'): the larger of the compute and the memory time for one call on `shape`."""
    spec = specs()[gpu]
    compute = evaluate(task.flops, shape) / (spec[compute_key(task.dtype)] * 1e12) if task.flops else 0.0
    memory = evaluate(task.bytes, shape) / (spec["gbps"] * 1e9) if task.bytes else 0.0
    return (compute, "compute") if compute >= memory else (memory, "memory")


def largest_graded(task, gpu: str = DEFAULT_GPU) -> tuple[dict, float, str]:
    """The graded (GPU) shape with the longest roofline time, that time and what bounds it."""
    graded = [*task.shapes.public, *task.shapes.hidden]
    timed = [(s, *roofline_s(task, s, gpu)) for s in graded]
    return max(timed, key=lambda x: x[1])


def main(argv: list[str] | None = None) -> int:
    from gpu.loader import get_task, load_kernel_suite

    ids = (argv if argv is not None else sys.argv[1:])
    tasks = [get_task(i) for i in ids] if ids else load_kernel_suite()
    for t in tasks:
        shape, secs, bound = largest_graded(t)
        mark = "ok " if secs > ROOFLINE_FLOOR_S else "LOW"
        print(f"{mark} {t.id:30} {secs * 1e6:10.1f} us  {bound:7}  {shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
