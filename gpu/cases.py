"""The grader's side of every call: inputs made from a secret seed, the expected outputs from the private
reference, pristine copies to tell a modified input, and the poisoned buffers the kernel writes; and the eager
reference timed on the same inputs, the baseline of the audit's speed-up flag."""

from __future__ import annotations

import statistics

import torch

from gpu import checks, timing
from gpu.config import GradeConfig
from gpu.models import KernelTask
from gpu.rand import Rand


def _copy(x):
    return x.clone() if isinstance(x, torch.Tensor) else x


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


class Case:
    """One set of inputs with its expected outputs, pristine input copies and the buffers the kernel writes."""

    def __init__(self, task: KernelTask, ref, shape: dict, seed: int, dist: str, dev: str):
        inputs = ref.make_inputs(dict(shape), Rand(seed, dist, dev))
        missing = [n for n in task.inputs if n not in inputs]
        if missing:
            raise RuntimeError(f"private reference make_inputs lacks {missing}")
        self.inputs = {n: inputs[n] for n in task.inputs}  # tensors, or plain Python numbers
        self.pristine = {n: _copy(t) for n, t in self.inputs.items()}
        with torch.no_grad():
            want = _as_tuple(ref.reference(**{n: _copy(t) for n, t in self.inputs.items()}))
        self.expected = dict(zip(task.outputs, want))
        self.args: dict[str, torch.Tensor] = {n: self.inputs[n] for n in task.inputs if n not in task.inplace}
        self.inits: dict[str, torch.Tensor] = {}
        for n in task.outputs:
            if n in task.inplace:
                self.args[n] = self.inputs[n]  # updated in place; starts as the input
                self.inits[n] = self.pristine[n]
            else:
                self.args[n] = checks.poison_(torch.empty_like(self.expected[n]))

    def refresh(self, task: KernelTask, ref, shape: dict, seed: int, dist: str, dev: str, expect: bool) -> None:
        """Fresh values into this case's own input tensors (the buffers the worker holds); with `expect`, the
        expected outputs and pristine copies for them too. Plain-number inputs stay as they were."""
        fresh = ref.make_inputs(dict(shape), Rand(seed, dist, dev))
        mine = {n: fresh[n] if isinstance(self.inputs[n], torch.Tensor) else self.inputs[n] for n in task.inputs}
        for n in task.inputs:
            if isinstance(self.inputs[n], torch.Tensor):
                self.inputs[n].copy_(mine[n])
        if expect:
            # From the grader's own fresh tensors, never read back from the shared buffers: a thread of the
            # submission's could rewrite those between the write and the read (to inputs it finds easy).
            self.pristine = {n: _copy(t) for n, t in mine.items()}
            with torch.no_grad():
                want = _as_tuple(ref.reference(**{n: _copy(t) for n, t in mine.items()}))
            self.expected = dict(zip(task.outputs, want))

    def check(self, task: KernelTask) -> str | None:
        for n in task.inputs:
            if n in task.inplace:
                continue
            a, b = self.inputs[n], self.pristine[n]
            if not (checks.same_bits(a, b) if isinstance(a, torch.Tensor) else a == b):
                return f"input {n!r} was modified"
        for n in task.outputs:
            why = checks.compare(task, n, self.args[n], self.expected[n])
            if why:
                return why
        return None

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (*self.inputs.values(), *self.args.values())
                   if isinstance(t, torch.Tensor))


def time_eager(task: KernelTask, ref, cases: list[Case], cfg: GradeConfig, dev: str, flush) -> float:
    """Median time of the private reference (eager torch), for the 10x audit flag, on the grader's own copies of
    the sets' inputs: the shared buffers are the submission's to scribble on."""
    sets = [{n: _copy(t) for n, t in c.pristine.items()} for c in cases]
    with torch.no_grad():
        fn = getattr(ref, "eager", ref.reference)
        timed = timing.time_calls(lambda k: fn(**sets[k % len(sets)]), lambda k: None,
                                  cfg.warmup + cfg.eager_samples, dev, flush)
    return statistics.median(timing.samples_from(timed, cfg.warmup))
