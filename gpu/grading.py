"""One grading once the submission sits in its build folder: its process started, the gate (every shape, seed and
distribution, on fresh inputs and poisoned outputs), then the timed calls, then the audit. Whatever ends it, the
grader's own files are checked for edits first: an edit outranks every other verdict."""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpu import timing
from gpu.audit import audit
from gpu.cases import Case, time_eager
from gpu.channel import ForgedReply, ReplyTimeout, WorkerDied, WorkerProcess
from gpu.config import GradeConfig
from gpu.intake import load_private
from gpu.integrity import FileGuard
from gpu.models import KernelTask
from gpu.rand import Rand

STAGED_SET_BUDGET = 2**30  # staged input sets live twice (device and host shared memory): keep the host side small

ShapeList = list[tuple[str, dict]]  # (group, shape): the public ones first, then the hidden ones


@dataclass(kw_only=True)
class Grading:
    """The grading of one submission in its build folder; `run` returns the finished record."""

    task: KernelTask
    role: str  # "reference" lifts the forbidden-op rule
    dev: str
    cfg: GradeConfig
    build: Path  # holds the submission's stub
    interpret: bool  # Triton on a CPU: the gate only, under the interpreter
    result: dict  # the record, filled in as the grading goes
    finish: Callable[..., dict]  # (status, reason, score) into the record, which it returns
    ref_path: Path  # the private reference
    guard: FileGuard  # the grader's files as they were before the submission's process started

    ref: object = field(init=False, repr=False)
    rng: Rand = field(init=False, repr=False)
    deadline: float = field(init=False, repr=False)
    child: WorkerProcess = field(init=False, repr=False)

    def run(self) -> dict:
        self.ref = load_private(self.ref_path)
        seed_root = secrets.randbits(62)  # secret for the grading; recorded only in the result, after it
        self.rng = Rand(seed_root, "normal", "cpu")
        self.deadline = time.monotonic() + self.task.timeouts.total_s
        public, hidden = self.task.shapes.for_device(self.dev)
        shapes = [("public", s) for s in public] + [("hidden", s) for s in hidden]
        self.child = self._start_child()
        self.result["transport"] = self.child.transport + (
            f" ({self.child.transport_note})" if self.child.transport_note else "")
        try:
            verdict = self._until_verdict(shapes)
        finally:
            self.child.close(graceful=self.dev == "cuda")
        if verdict:
            return verdict
        late = self._tampered_reference()  # once more, now that the submission's process group is gone
        if late:
            return late
        self.result["seed"] = seed_root
        return self.finish(*audit(self.result, self.task, self.dev, self.child.round_trip_s))

    def _start_child(self) -> WorkerProcess:
        cache = self.build / ".cache"
        env = {
            "TORCH_EXTENSIONS_DIR": str(cache / "torch_extensions"),
            "TRITON_CACHE_DIR": str(cache / "triton"),
            "TRITON_HOME": str(cache / "triton_home"),
            "CUDA_CACHE_PATH": str(cache / "nv"),
            "TRITON_INTERPRET": "1" if self.interpret else None,
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        task = self.task
        child_cfg = {"build": str(self.build), "file": str(self.build / task.stub), "entry": task.entry,
                     "device": self.dev, "outputs": list(task.outputs), "transport": self.cfg.transport,
                     "forbidden": [] if self.role == "reference" else list(task.forbidden_ops)}
        return WorkerProcess(child_cfg, env, self.build, task.timeouts.compile_s, sandboxed=self.cfg.sandboxed)

    def _left(self, limit: float) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise ReplyTimeout(f"grading ran past its {self.task.timeouts.total_s:.0f} s limit")
        return min(limit, remaining)

    def _verdict_of(self, kind: str, body, what: str) -> dict | None:
        if kind in ("compile_error", "runtime_error"):
            return self.finish(kind, f"{what}: {str(body).strip()[-1500:]}")
        if body.get("tamper"):
            return self.finish("cheat_rejected", f"{what}: the submission replaced {', '.join(body['tamper'][:5])}")
        if body.get("moved"):
            return self.finish("cheat_rejected", f"{what}: the kernel re-pointed or resized "
                                                 f"{', '.join(body['moved'])} (outputs must be written in place, "
                                                 "never swapped for other storage)")
        if body.get("forbidden"):
            return self.finish("cheat_rejected", f"{what}: forbidden operators called: {', '.join(body['forbidden'])}")
        return None

    def _tampered_reference(self) -> dict | None:
        fixed = self.guard.restore()
        if fixed:
            what = "private reference was" if fixed == [str(self.ref_path.resolve())] else "own files were"
            return self.finish("cheat_rejected", f"the grader's {what} modified during grading (restored): "
                                                 f"{', '.join(fixed[:4])}")
        return None

    def _until_verdict(self, shapes: ShapeList) -> dict | None:
        """The grading in the submission's process: its verdict, or None when every timed shape is recorded."""
        child, timeouts = self.child, self.task.timeouts
        try:
            child.calibrate(self._left(timeouts.compile_s))
            kind, body = child.recv(self._left(timeouts.compile_s), ("ready",))
            if kind != "ready":
                return self._tampered_reference() or self.finish(kind, f"build/import: {str(body).strip()[-1500:]}")
            v = self._verdict_of(kind, body, "import")
            if v:
                return v
            v = self._gate(shapes)
            if v:
                return v
            if self.interpret:
                return self._tampered_reference() or self.finish(
                    "skipped_no_gpu", "correct under the Triton CPU interpreter; timing a Triton kernel needs a GPU")
            flush = timing.flush_buffer(self.dev)
            for group, shape in shapes:
                v = self._time_shape(group, shape, flush)
                if v:
                    return v
            return self._tampered_reference()
        except ReplyTimeout as exc:
            return self._tampered_reference() or self.finish("timeout", str(exc))
        except WorkerDied as exc:
            return self._tampered_reference() or self.finish("runtime_error", str(exc))
        except ForgedReply as exc:
            return self._tampered_reference() or self.finish(
                "cheat_rejected", f"the grader received {exc}: the submission wrote on the grader's channel")

    def _gate(self, shapes: ShapeList) -> dict | None:
        task, child = self.task, self.child
        n_cases = 0
        for group, shape in shapes:
            for dist in task.distributions:
                for _ in range(self.cfg.seeds):
                    case = Case(task, self.ref, shape, int(self.rng.randint(0, 2**62, 1)), dist, self.dev)
                    wire = child.to_wire(case.args)
                    kind, body = child.request("call", wire, self._left(task.timeouts.call_s), ("done",))
                    v = self._verdict_of(kind, body, f"{group} shape {shape}, {dist} inputs")
                    if v:
                        return self._tampered_reference() or v
                    child.from_wire(wire, case.args)
                    n_cases += 1
                    why = case.check(task)
                    if why:
                        if body.get("returned"):
                            why += " (the kernel returned a value: results must be written into the outputs)"
                        return self._tampered_reference() or self.finish(
                            "incorrect", f"{group} shape {shape}, {dist} inputs: {why}")
        self.result["correctness"] = {"cases": n_cases, "passed": True, "seeds": self.cfg.seeds,
                                      "distributions": list(task.distributions), "shapes": len(shapes)}
        return None

    def _time_shape(self, group: str, shape: dict, flush) -> dict | None:
        """One call at a time on rotating buffers, fresh inputs before every call (nothing can be prepared ahead or
        replayed), a secret subset of calls and the last validated right after the call; records the shape's
        times, or returns the verdict that ended it."""
        task, cfg, dev, child, ref, rng = self.task, self.cfg, self.dev, self.child, self.ref, self.rng
        set_budget = cfg.set_budget_bytes if child.transport != "staged" else min(cfg.set_budget_bytes,
                                                                                   STAGED_SET_BUDGET)
        n_calls = cfg.warmup + cfg.samples + secrets.randbelow(cfg.samples_jitter + 1)
        probe = Case(task, ref, shape, int(rng.randint(0, 2**62, 1)), task.distributions[0], dev)
        n_sets = max(2, min(n_calls, set_budget // max(probe.nbytes(), 1)))
        cases = [probe] + [Case(task, ref, shape, int(rng.randint(0, 2**62, 1)),
                                task.distributions[i % len(task.distributions)], dev)
                           for i in range(1, n_sets)]
        wires = [child.to_wire(c.args) for c in cases]
        kind, body = child.request("time_setup", {"sets": wires, "outputs": list(task.outputs),
                                                  "inplace": list(task.inplace)},
                                   self._left(task.timeouts.call_s), ("set",))
        v = self._verdict_of(kind, body, f"timing {group} shape {shape}")
        if v:
            return self._tampered_reference() or v
        overhead = float(body["overhead_s"])
        samples, walls = [], []
        for k in range(n_calls):
            c, wire = cases[k % n_sets], wires[k % n_sets]
            check_this = k == n_calls - 1 or secrets.randbelow(100) < cfg.validate_percent
            dist = task.distributions[k % len(task.distributions)]
            c.refresh(task, ref, shape, int(rng.randint(0, 2**62, 1)), dist, dev, expect=check_this)
            child.refill_wire(wire, c.args)
            w0 = time.monotonic()
            kind, body = child.request("time1", {"set": k % n_sets}, self._left(task.timeouts.call_s), ("timed1",))
            walls.append(time.monotonic() - w0)
            v = self._verdict_of(kind, body, f"timing {group} shape {shape}")
            if v:
                return self._tampered_reference() or v
            if check_this:
                child.from_wire(wire, c.args)
                why = c.check(task)
                if why:
                    return self._tampered_reference() or self.finish(
                        "incorrect", f"timing {group} shape {shape}: timed call {k + 1} of {n_calls} failed "
                                     f"validation: {why}")
            if k >= cfg.warmup:
                samples.append(timing.sample(body["event_s"], body["host_s"], overhead))
        median = statistics.median(samples)
        eager = time_eager(task, ref, cases, cfg, dev, flush)
        work = task.work(shape)
        scale = 1e12 if task.metric == "tflops" else 1e9
        self.result["shapes"].append({
            "group": group, "shape": shape, "work": work, "median_s": median,
            "min_s": min(samples), "samples": len(samples), "input_sets": n_sets,
            "achieved": work / median / scale if median > 0 else float("inf"),
            "eager_median_s": eager, "speedup_vs_eager": eager / median if median > 0 else float("inf"),
            "grader_wall_median_s": statistics.median(walls[cfg.warmup:]),
        })
        return None
