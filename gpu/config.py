"""How hard one grading looks: seeds, timed calls, memory for input sets, and how the submission's process is
run and reached. Defaults per device kind."""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.isolation.bwrap import bwrap_path


@dataclass(frozen=True)
class GradeConfig:
    seeds: int  # correctness seeds per shape and distribution
    warmup: int
    samples: int  # timed calls after the warm-up (a secret extra of up to samples_jitter is added)
    samples_jitter: int
    set_budget_bytes: int  # memory for the rotating input sets of one shape
    eager_samples: int
    # The share of timed calls, besides each shape's last, validated right after they return (a secret subset). A
    # GPU times 60-80 calls a shape, so a kernel that skips calls it bets go unchecked is caught all but surely;
    # the CPU's 8-10 would let one that skips two in three through about once in 700 gradings at 30%, so there
    # every call is checked (its shapes are small: the reference's outputs cost little).
    validate_percent: int = 30
    # The submission's process inside bubblewrap (sandbox.isolation.bwrap): its own pid namespace, the system and the
    # Python runtime read-only, only its build folder writable, as uid 65534 when we are root. Off on CUDA until a
    # GPU run has shown CUDA IPC across the namespace works; on a CPU it is on wherever bwrap is installed.
    sandboxed: bool = False
    # How tensors reach the submission's process: "direct" (shared memory on a CPU, CUDA IPC on a GPU), "staged"
    # (host shared memory; the worker copies to and from its device) or "auto" (direct where a probe tensor makes
    # the round trip, else staged: some GPU sandboxes refuse CUDA IPC).
    transport: str = "auto"

    @classmethod
    def for_device(cls, kind: str) -> GradeConfig:
        if kind == "cuda":
            return cls(seeds=3, warmup=10, samples=60, samples_jitter=20, set_budget_bytes=4 * 2**30, eager_samples=20)
        return cls(seeds=2, warmup=2, samples=6, samples_jitter=2, set_budget_bytes=64 * 2**20, eager_samples=4,
                   validate_percent=100, sandboxed=bwrap_path() is not None)
