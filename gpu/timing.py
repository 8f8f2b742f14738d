"""The timing loop shared by the grader's worker, the grader itself (eager baseline) and bench/gpu.

Per call: prepare (poison or reset the outputs of this input set), synchronise, flush L2 on a GPU, then time the
call with device events AND a host clock closed by a device-wide synchronise, so work the kernel leaves running on
another stream is still counted. Clocks are bound at import, before any submission is loaded, so patching
time.perf_counter or friends later changes nothing here (and the worker reports such patches)."""

from __future__ import annotations

import statistics
from time import perf_counter_ns as _clock
from typing import Callable

import torch

_cuda_sync = torch.cuda.synchronize
_Event = torch.cuda.Event


def poison_(t: torch.Tensor) -> torch.Tensor:
    """Fill an output with values no correct kernel leaves there: NaN for floats, the minimum for integers."""
    if t.dtype.is_floating_point:
        return t.fill_(float("nan"))
    if t.dtype == torch.bool:
        return t.fill_(True)
    return t.fill_(torch.iinfo(t.dtype).min)


def flush_buffer(device: str) -> torch.Tensor | None:
    """A buffer larger than L2 whose zeroing evicts the previous call's data (GPU only)."""
    if device != "cuda":
        return None
    l2 = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or 0
    return torch.empty(max(256 * 2**20, 2 * l2) // 4, dtype=torch.int32, device="cuda")


def time_calls(call: Callable[[int], object], prepare: Callable[[int], object], n_calls: int, device: str,
               flush: torch.Tensor | None = None) -> dict:
    """Run call(k) for k in range(n_calls); returns per-call event and host times (seconds) and the host
    overhead of an empty timed region (seconds)."""
    host: list[float] = []
    if device == "cuda":
        overhead = _host_overhead_cuda(flush)
        starts = [_Event(enable_timing=True) for _ in range(n_calls)]
        ends = [_Event(enable_timing=True) for _ in range(n_calls)]
        for k in range(n_calls):
            prepare(k)
            _cuda_sync()
            t0 = _clock()
            if flush is not None:
                flush.zero_()  # keeps the device busy while the host launches the call, as do_bench does
            starts[k].record()
            call(k)
            ends[k].record()
            _cuda_sync()
            host.append((_clock() - t0) / 1e9)
        event = [s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends)]
        return {"event_s": event, "host_s": host, "overhead_s": overhead}
    for k in range(n_calls):
        prepare(k)
        t0 = _clock()
        call(k)
        host.append((_clock() - t0) / 1e9)
    return {"event_s": None, "host_s": host, "overhead_s": 0.0}


def time_one(call: Callable[[], object], device: str, flush: torch.Tensor | None = None) -> tuple[float | None, float]:
    """One call, already prepared: (device-event seconds or None on a CPU, synchronised host seconds)."""
    if device == "cuda":
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _cuda_sync()
        t0 = _clock()
        if flush is not None:
            flush.zero_()
        start.record()
        call()
        end.record()
        _cuda_sync()
        host = (_clock() - t0) / 1e9
        return start.elapsed_time(end) / 1e3, host
    t0 = _clock()
    call()
    return None, (_clock() - t0) / 1e9


def host_overhead(device: str, flush: torch.Tensor | None) -> float:
    """The synchronised host time of an empty timed region (0 on a CPU)."""
    return _host_overhead_cuda(flush) if device == "cuda" else 0.0


def _host_overhead_cuda(flush: torch.Tensor | None, n: int = 25) -> float:
    """Median host time of the timed region without the call: the flush, two event records, a synchronise."""
    out = []
    a, b = _Event(enable_timing=True), _Event(enable_timing=True)
    for _ in range(n):
        _cuda_sync()
        t0 = _clock()
        if flush is not None:
            flush.zero_()
        a.record()
        b.record()
        _cuda_sync()
        out.append((_clock() - t0) / 1e9)
    return statistics.median(out)


def sample(event_s: float | None, host_s: float, overhead_s: float) -> float:
    """One call's seconds: the device-event time, unless the synchronised host clock saw more (work left on a side
    stream), in which case the host time less its empty-region overhead."""
    return host_s if event_s is None else max(event_s, host_s - overhead_s)


def samples_from(timed: dict, warmup: int) -> list[float]:
    """Per-call seconds after the warm-up: the device-event time, unless the synchronised host clock saw more
    (work on a side stream), in which case the host time less its empty-region overhead."""
    host = timed["host_s"][warmup:]
    if timed["event_s"] is None:
        return host
    ev = timed["event_s"][warmup:]
    oh = timed["overhead_s"]
    return [max(e, h - oh) for e, h in zip(ev, host)]
