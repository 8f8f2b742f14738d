"""Measured tolerances. Each task's tolerance comes from the error between its reference and an independent
correct implementation (the numerical floor), and is checked against a variant that ignores what the task is
about: a tolerance that lets that variant through is too loose to tell a right kernel from a wrong one.

Both live in the grader's private folder, `gpu/private/<id>/precision.py`, beside the private reference:
`alternate(**inputs)` and `variant(**inputs)` return what `reference` returns, and `VARIANT` says in a phrase what
the variant leaves out. The measured numbers are kept in the task's `[precision]` section; `python -m gpu.precision
TASK --write` measures and writes them, and make test measures again and holds the section to them.

The error of one element is |got - want| / (|want| + m), where m is the mean |want| of the whole output: relative
where values are large, absolute (in units of the output's typical size) near zero, so one number fits an output
whatever its scale. Integer and bool outputs are exact; their error is the share of elements that differ."""

from __future__ import annotations

import argparse
import math
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import torch

from gpu.rand import Rand

FLOOR_FACTOR = 4.0  # the tolerance is this many times the floor: shapes, seeds and devices move the floor a little
VARIANT_MARGIN = 2.0  # the variant's smallest error must be at least this many tolerances
SEEDS = (0, 1, 2)
# Below these a tolerance would demand more than the output dtype can hold (a few units in its last place).
MIN_TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}
MIN_TOLERANCE_FP8 = 0.125


def _exact(t: torch.Tensor) -> bool:
    return not (t.dtype.is_floating_point or t.dtype.is_complex)


def normalised(got: torch.Tensor, want: torch.Tensor) -> tuple[torch.Tensor, float]:
    """(each element's error, m): |got - want| / (|want| + m) with m the mean |want| over finite elements (1 when
    that is 0); 0 where want is not finite and got is the same, inf where got is NaN or a non-finite is missed."""
    g, w = got.double(), want.double()
    finite = torch.isfinite(w)
    scale = (float(w[finite].abs().mean()) if bool(finite.any()) else 0.0) or 1.0
    same_special = ~finite & ((g == w) | (torch.isnan(g) & torch.isnan(w)))
    err = torch.where(finite, (g - w).abs() / (w.abs() + scale),
                      torch.where(same_special, torch.zeros_like(g), torch.full_like(g, math.inf)))
    return torch.nan_to_num(err, nan=math.inf), scale


def error(got: torch.Tensor, want: torch.Tensor) -> float:
    """The largest normalised error of `got` against `want` (see the module's doc); inf when shapes differ."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return math.inf
    if want.numel() == 0:
        return 0.0
    if _exact(want):
        return float((got != want).double().mean())
    return float(normalised(got, want)[0].max())


def min_tolerance(dtype: torch.dtype) -> float:
    return MIN_TOLERANCE.get(dtype, MIN_TOLERANCE_FP8)


def tolerance_from(floor: float, dtype: torch.dtype) -> float:
    """FLOOR_FACTOR x the floor, at least the dtype's minimum, rounded up to two significant digits."""
    t = max(FLOOR_FACTOR * floor, min_tolerance(dtype))
    digits = 1 - math.floor(math.log10(t))
    return math.ceil(t * 10**digits - 1e-9) / 10**digits


def private_module(task, name: str, private_root: Path | None = None) -> ModuleType:
    from gpu.intake import load_private
    from gpu.loader import PRIVATE_DIR

    path = Path(private_root or PRIVATE_DIR) / task.id / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing (the grader's {name} for {task.id})")
    return load_private(path)


def _tuple(x) -> tuple[torch.Tensor, ...]:
    return x if isinstance(x, tuple) else (x,)


def fresh(inputs: dict) -> dict:
    """A copy of the inputs for one call (each implementation may write into its own)."""
    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in inputs.items()}


def cases(task):
    """(shape, distribution, seed) of every measurement: the CPU shapes with three seeds, the (larger) precision
    shapes with one, each in every distribution."""
    for shapes, seeds in (((*task.shapes.cpu_public, *task.shapes.cpu_hidden), SEEDS),
                          (task.shapes.precision, SEEDS[:1])):
        for shape in shapes:
            for dist in task.distributions:
                for seed in seeds:
                    yield dict(shape), dist, seed


def measure(task, private_root: Path | None = None, on_case=None) -> dict:
    """{"variant": phrase, "outputs": {name: {floor, variant_error, dtype}}}: the floor is the largest error of
    the alternate over the cases, the variant's error the smallest (it must fail every case). `on_case(case, want,
    alt, bad)` sees each case's outputs (the tests hold the gate to them)."""
    ref = private_module(task, "reference", private_root)
    prec = private_module(task, "precision", private_root)
    floor = dict.fromkeys(task.outputs, 0.0)
    var = dict.fromkeys(task.outputs, math.inf)
    dtypes: dict[str, torch.dtype] = {}
    with _one_thread(), torch.no_grad():
        for shape, dist, seed in cases(task):
            inputs = ref.make_inputs(shape, Rand(seed, dist))
            want, alt, bad = (_tuple(f(**fresh(inputs))) for f in (ref.reference, prec.alternate, prec.variant))
            if on_case is not None:
                on_case((shape, dist, seed), want, alt, bad)
            for name, w, a, b in zip(task.outputs, want, alt, bad, strict=True):
                dtypes[name] = w.dtype
                floor[name] = max(floor[name], error(a, w))
                var[name] = min(var[name], error(b, w))
    return {"variant": prec.VARIANT, "outputs": {
        n: {"floor": floor[n], "variant_error": var[n], "dtype": dtypes[n]} for n in task.outputs}}


@contextmanager
def _one_thread():
    """The same sums in the same order on every machine (a floor is written down and measured again), and no
    thread contention when several test workers share the cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def section(task, measured: dict) -> str:
    """The `[precision]` TOML section for what `measure` found."""
    lines = ["[precision]", f"variant = {_toml_str(measured['variant'])}"]
    for name, m in measured["outputs"].items():
        lines.append(f"\n[precision.outputs.{name}]")
        floor = _num(m["floor"])  # the tolerance comes from the floor as written, so the section checks itself
        if _exact(torch.empty(0, dtype=m["dtype"])):
            lines += ["exact = true", f"floor = {floor}", f"variant_error = {_num(m['variant_error'])}"]
        else:
            lines += [f"floor = {floor}", f"tolerance = {_num(tolerance_from(float(floor), m['dtype']))}",
                      f"variant_error = {_num(m['variant_error'])}"]
    return "\n".join(lines) + "\n"


def _num(x: float) -> str:
    return "0.0" if x == 0 else f"{x:.2e}" if x < 1e-2 or x >= 1e3 else f"{x:.3g}"


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_section(toml_path: Path, text: str) -> None:
    """Replace the file's `[precision...]` tables with `text`, appended at the end."""
    src = toml_path.read_text(encoding="utf-8")
    kept, skipping = [], False
    for line in src.splitlines():
        header = re.match(r"\s*\[+\s*([A-Za-z0-9_.\"]+)\s*\]+", line)
        if header:
            skipping = header.group(1).split(".")[0] == "precision"
        if not skipping:
            kept.append(line)
    body = "\n".join(kept).rstrip() + "\n\n" + text
    toml_path.write_text(body, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    from gpu.loader import TASKS_DIR, load_kernel_task

    ap = argparse.ArgumentParser(prog="python -m gpu.precision", description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", nargs="+", help="task ids")
    ap.add_argument("--write", action="store_true", help="write the [precision] section into each task.toml")
    args = ap.parse_args(argv)
    for tid in args.tasks:
        folder = TASKS_DIR / tid
        if not folder.is_dir():
            print(f"error: no kernel task {tid!r} in {TASKS_DIR}", file=sys.stderr)
            return 2
        task = load_kernel_task(folder, measured=False)
        text = section(task, measure(task))
        print(f"# {tid}\n{text}")
        if args.write:
            write_section(TASKS_DIR / tid / "task.toml", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
