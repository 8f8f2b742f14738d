"""The kernel task model: what gpu/tasks/<id>/task.toml holds, checked by pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from gpu.formulas import FormulaError, evaluate
from task_defs.vocabulary import KERNEL_STATUSES

Family = Literal[
    "gemm", "softmax", "norm", "rope", "attention", "sampling", "moe", "ssm", "kv_cache", "optimizer", "reduction",
    "quantization", "training", "sparse_attention", "diffusion", "speculative", "conv",
]
Metric = Literal["tflops", "gbps"]
DType = Literal["fp32", "fp16", "bf16", "fp8", "int", "mixed"]
Distribution = Literal["normal", "wide", "outliers"]
NAME = r"^[a-z][a-z0-9_]*$"

Shape = dict[str, int]

STATUSES = KERNEL_STATUSES  # the grader's verdicts, defined with every other outcome word


class Shapes(BaseModel):
    """Shapes graded on a GPU (public ones are shown to the agent) and the small ones the CPU path uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    public: list[Shape] = Field(min_length=1)
    hidden: list[Shape] = Field(min_length=1)
    cpu_public: list[Shape] = Field(min_length=1)
    cpu_hidden: list[Shape] = Field(min_length=1)
    # CPU shapes only the precision measurement adds (gpu/precision.py): a reduction as long as a graded one, so the
    # floor is measured where accumulated error is largest
    precision: list[Shape] = Field(default_factory=list)

    @model_validator(mode="after")
    def _same_parameters(self) -> Shapes:
        keys = set(self.public[0])
        for group in ("public", "hidden", "cpu_public", "cpu_hidden", "precision"):
            for i, s in enumerate(getattr(self, group)):
                if set(s) != keys:
                    raise ValueError(f"{group}[{i}] has parameters {sorted(s)}, expected {sorted(keys)}")
                bad = [k for k, v in s.items() if v <= 0]
                if bad:
                    raise ValueError(f"{group}[{i}]: parameters must be positive, got {bad}")
        return self

    def for_device(self, kind: str) -> tuple[list[Shape], list[Shape]]:
        return (self.public, self.hidden) if kind == "cuda" else (self.cpu_public, self.cpu_hidden)


class OutputPrecision(BaseModel):
    """What gpu/precision.py measured for one output, and the tolerance the gate holds it to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    floor: float = Field(ge=0)  # the alternate's largest error: the numerical floor
    variant_error: float = Field(ge=0)  # the feature-ignoring variant's smallest error
    tolerance: float | None = Field(default=None, gt=0)  # largest error passed (floating outputs)
    exact: bool = False  # integer and bool outputs: every element equal

    @model_validator(mode="after")
    def _one_rule(self) -> OutputPrecision:
        if self.exact == (self.tolerance is not None):
            raise ValueError("an output is either exact = true or has a tolerance, not both or neither")
        return self


class Precision(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    variant: str = Field(min_length=3)  # what the variant leaves out, in a phrase
    outputs: dict[str, OutputPrecision]


class Timeouts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    compile_s: float = Field(default=300, gt=0, le=1800)  # import and build of the submission
    call_s: float = Field(default=60, gt=0, le=600)  # one correctness call or one timing batch
    total_s: float = Field(default=900, gt=0, le=3600)  # the whole grading of one submission


class KernelTask(BaseModel):
    """One kernel task: the operation, its tensors, the shapes, how work is counted and what is forbidden."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=NAME)
    title: str = Field(min_length=3)
    family: Family
    metric: Metric
    dtype: DType
    entry: str = Field(default="kernel", pattern=NAME)  # the function the submission defines
    stub: str = "kernel.py"  # the file the agent edits
    inputs: list[str] = Field(min_length=1)
    outputs: list[str] = Field(min_length=1)
    inplace: list[str] = Field(default_factory=list)  # outputs that start as the same-named input and are updated
    flops: str | None = None
    bytes: str | None = None
    distributions: list[Distribution] = Field(default_factory=lambda: ["normal", "wide"], min_length=1)
    forbidden_ops: list[str] = Field(default_factory=list)
    shapes: Shapes
    precision: Precision | None = None  # measured tolerances by output (gpu/precision.py); required to grade
    keywords: list[str] = Field(default_factory=list)  # for the catalog: what the task is about
    gpus: int = Field(default=1, ge=1, le=8)
    timeouts: Timeouts = Field(default_factory=Timeouts)

    _folder: Path | None = PrivateAttr(default=None)

    @field_validator("inputs", "outputs", "inplace")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        import re

        for n in v:
            if not re.match(NAME, n):
                raise ValueError(f"{n!r} is not a valid tensor name (lower case, digits, underscores)")
        if len(set(v)) != len(v):
            raise ValueError("names must be unique")
        return v

    @field_validator("forbidden_ops")
    @classmethod
    def _ops(cls, v: list[str]) -> list[str]:
        for op in v:
            if not op.startswith("aten::") or len(op) <= len("aten::"):
                raise ValueError(f"forbidden ops are aten operator names like 'aten::mm', got {op!r}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> KernelTask:
        for n in self.inplace:
            if n not in self.inputs or n not in self.outputs:
                raise ValueError(f"inplace: {n!r} must be both an input and an output")
        clash = (set(self.outputs) & set(self.inputs)) - set(self.inplace)
        if clash:
            raise ValueError(f"outputs: {sorted(clash)} share a name with an input but are not listed in inplace")
        if self.precision is not None and set(self.precision.outputs) != set(self.outputs):
            raise ValueError(f"precision: outputs {sorted(self.precision.outputs)} must be exactly the task's "
                             f"outputs {sorted(self.outputs)}")
        formula = self.flops if self.metric == "tflops" else self.bytes
        if formula is None:
            need = "flops" if self.metric == "tflops" else "bytes"
            raise ValueError(f"{need}: metric {self.metric!r} needs the {need} formula")
        for field in ("flops", "bytes"):
            expr = getattr(self, field)
            if expr is None:
                continue
            for group in ("public", "hidden", "cpu_public", "cpu_hidden"):
                for shape in getattr(self.shapes, group):
                    try:
                        value = evaluate(expr, shape)
                    except FormulaError as exc:
                        raise ValueError(f"{field}: {exc}") from None
                    if value <= 0:
                        raise ValueError(f"{field}: {expr!r} is {value} for {group} shape {shape}, must be positive")
        return self

    # --- derived ---
    @property
    def folder(self) -> Path:
        assert self._folder is not None, "task was not loaded from a folder"
        return self._folder

    @property
    def unit(self) -> str:
        return "TFLOP/s" if self.metric == "tflops" else "GB/s"

    def work(self, shape: Shape) -> float:
        """FLOPs (tflops tasks) or bytes (gbps tasks) credited for one call on `shape`."""
        return evaluate(self.flops if self.metric == "tflops" else self.bytes, shape)

    def kernel_args(self) -> list[str]:
        """The keyword arguments the kernel gets: read-only inputs, then outputs (in-place ones included)."""
        return [n for n in self.inputs if n not in self.inplace] + list(self.outputs)
