"""The submission's own process. The grader starts one per submission (gpu/channel.py) and talks to it over a
Unix socket: the grader sends inputs and poisoned outputs (shared memory, or CUDA IPC on a GPU), this
process runs the kernel on them and answers. It never sees the reference, the expected outputs or the seeds.
With the "staged" transport (where CUDA IPC does not work, e.g. in some GPU sandboxes) tensors travel as host
shared memory instead: this process copies them to its device, runs the kernel on its own copies and copies every
tensor back, inputs included, so the grader still sees changed inputs and unwritten outputs.

Before the submission is imported it records the identity of the functions timing and messaging rely on; any
change after import or after a call is reported as tampering."""

from __future__ import annotations

import importlib.util
import json
import multiprocessing.connection as mpc
import os
import sys
import time
import traceback

import torch
import torch.multiprocessing  # noqa: F401  (registers the tensor reductions for the pipe)
from torch._library import custom_ops
from torch.utils._python_dispatch import TorchDispatchMode

from gpu import timing

TB_LIMIT = 4000


def _watched() -> list[tuple[str, object, str]]:
    out = [(f"time.{n}", time, n) for n in
           ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns", "process_time")]
    out += [(f"torch.{n}", torch, n) for n in
            ("empty", "empty_like", "equal", "allclose", "isclose", "randn", "rand")
            if hasattr(torch, n)]
    out += [(f"torch.Tensor.{n}", torch.Tensor, n) for n in
            ("fill_", "copy_", "zero_", "clone", "data_ptr", "__eq__", "untyped_storage", "record_stream")]
    out += [(f"torch.cuda.{n}", torch.cuda, n) for n in ("synchronize", "Event", "Stream", "current_stream")]
    out += [(f"torch.cuda.Event.{n}", torch.cuda.Event, n) for n in ("record", "elapsed_time", "synchronize", "query")]
    out += [(f"Connection.{n}", mpc.Connection, n) for n in ("send", "send_bytes", "recv", "poll", "_send_bytes",
                                                             "_recv_bytes", "_send")]
    for mod in (timing, sys.modules[__name__]):
        out += [(f"{mod.__name__}.{n}", mod, n) for n, v in vars(mod).items()
                if callable(v) and not n.startswith("__")]
    return out


def _inside(fn) -> tuple:
    """What a Python function runs with besides its identity: swapping __code__ (or defaults) keeps the object."""
    return (getattr(fn, "__code__", None), getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))


class Snapshot:
    def __init__(self) -> None:
        self.items = [(label, obj, name, getattr(obj, name), _inside(getattr(obj, name)))
                      for label, obj, name in _watched()]

    def changed(self) -> list[str]:
        out = []
        for label, obj, name, val, inside in self.items:
            now = getattr(obj, name, None)
            if now is not val or _inside(now) != inside:
                out.append(label)
        return out


class OpWatch(TorchDispatchMode):
    """Records the forbidden aten operators a call reaches."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's __torch_dispatch__ in Dynamo's "disable" by default, and that wrapper imports all of
        # Dynamo at the mode's first call: about 900 modules and 2 CPU-seconds in every submission's process, as
        # much again as `import torch`. This frame only reads the operator's name and calls it, and a compiled
        # submission's operators still reach it (eager, aot_eager and inductor backends checked).
        return False

    def __init__(self, forbidden: set[str]):
        super().__init__()
        self.forbidden, self.hits = forbidden, set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func._schema.name
        if name in self.forbidden:
            self.hits.add(name)
        elif self.forbidden and name.split("::")[0] not in ("aten", "prims"):
            self.hits.add(f"{name} (a custom operator: what it runs cannot be checked)")
        return func(*args, **(kwargs or {}))


def _error_kind(exc: BaseException) -> str:
    names = {c.__name__ for c in type(exc).__mro__}
    if "CompilationError" in names or "Error building extension" in str(exc):
        return "compile_error"
    return "runtime_error"


def _tb() -> str:
    return traceback.format_exc()[-TB_LIMIT:]


def _ptrs(args: dict) -> dict:
    return {n: (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype, t.device) if isinstance(t, torch.Tensor)
            else t for n, t in args.items()}


def _reply(conn, kind: str, body) -> None:
    """Replies travel as JSON, never pickle: the grader must not run anything this process could put in a pickle."""
    conn.send_bytes(json.dumps([kind, body], default=str).encode())


def _stage_in(wire: dict, device: str) -> dict:
    """This process's own copies of the tensors the grader sent, on the grading device."""
    return {n: t.to(device, copy=True) if isinstance(t, torch.Tensor) else t for n, t in wire.items()}


def _stage_out(wire: dict, local: dict) -> None:
    """Every tensor back into the grader's shared memory: outputs for the check, inputs to show they are unchanged."""
    for n, t in wire.items():
        if isinstance(t, torch.Tensor):
            t.copy_(local[n])


def _agree_transport(conn, cfg: dict) -> str:
    """'direct' (CUDA IPC on a GPU, shared memory on a CPU) or 'staged'. With 'auto' the grader first sends a small
    device tensor: if it arrives and our write to it reaches the grader, direct transport works here."""
    if cfg.get("transport", "direct") != "auto":
        return cfg.get("transport", "direct")
    try:
        _, probe = conn.recv()
        if probe is None:
            raise RuntimeError("the grader could not share a device tensor")
        probe.fill_(7)
        torch.cuda.synchronize()
        _reply(conn, "probe", "ok")
    except Exception as exc:  # noqa: BLE001 - any failure here means: use the staged transport
        _reply(conn, "probe", f"{type(exc).__name__}: {exc}"[:500])
    _, chosen = conn.recv()
    return chosen


def main() -> None:
    """Entry of `python -m gpu.worker`: one JSON line on stdin (address, key, build, file, entry, outputs,
    forbidden, device), then connect back to the grader."""
    import multiprocessing

    cfg = json.loads(sys.stdin.readline())
    key = bytes.fromhex(cfg["key"])
    multiprocessing.current_process().authkey = key  # shared-memory tensors travel through the same key
    conn = mpc.Client(cfg["address"], family="AF_UNIX", authkey=key)
    serve(conn, cfg)


def serve(conn, cfg: dict) -> None:
    os.chdir(cfg["build"])
    sys.path.insert(0, cfg["build"])
    device = cfg["device"]
    if device == "cuda":
        torch.cuda.init()
    staged = _agree_transport(conn, cfg) == "staged"
    while True:  # round trips the grader times before the submission exists, then the word to import it
        msg, _ = conn.recv()
        if msg != "ping":
            break
        _reply(conn, "pong", "")
    if msg != "import":
        return
    with OpWatch({"aten::_no_such_op"}):  # first use imports what the mode needs: before the snapshot, not after
        torch.zeros(1).add_(1)
    snap = Snapshot()
    ops_before = len(custom_ops.OPDEFS)
    try:
        spec = importlib.util.spec_from_file_location("kbench_submission", cfg["file"])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["kbench_submission"] = mod
        spec.loader.exec_module(mod)
        fn = getattr(mod, cfg["entry"], None)
        if not callable(fn):
            _reply(conn, "compile_error", f"{os.path.basename(cfg['file'])} defines no function {cfg['entry']!r}")
            return
        if len(custom_ops.OPDEFS) > ops_before:
            # A custom operator's first call under a dispatch mode loads all of Dynamo (1.5 CPU-s): loaded here,
            # in the build's time, so the first checked call's time limit never pays for it.
            importlib.import_module("torch._dynamo")
    except BaseException as exc:  # noqa: BLE001 - anything at import is the submission's build failing
        _reply(conn, "compile_error" if not isinstance(exc, SystemExit) else "runtime_error", _tb())
        return
    _reply(conn, "ready", {"tamper": snap.changed()})
    forbidden = set(cfg["forbidden"])
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sets, wire_sets, ptrs, poison, flush = [], [], [], [], None
    while True:
        try:
            msg, payload = conn.recv()
        except EOFError:
            return
        if msg == "exit":
            return
        try:
            if msg == "call":
                args = _stage_in(payload, device) if staged else payload
                before = _ptrs(args)
                watch = OpWatch(forbidden)
                if forbidden:
                    with watch:
                        ret = fn(**args)
                else:
                    ret = fn(**args)
                # What a consumer on the calling stream would read: copies ordered after the call's work on that
                # stream only. Work left running on a side stream, never joined back, is not in them. (On a CPU
                # the same steps run, harmlessly, so the tests exercise them.)
                seen = [(args[n], args[n].clone()) for n in cfg["outputs"]]
                sync()
                for dst, copy in seen:
                    dst.copy_(copy)
                sync()
                after = _ptrs(args)
                moved = sorted(n for n in args if before[n] != after[n])
                if staged and not moved:
                    _stage_out(payload, args)
                _reply(conn, "done", {"returned": ret is not None, "forbidden": sorted(watch.hits),
                                      "moved": moved, "tamper": snap.changed()})
            elif msg == "time_setup":
                # The rotating buffers for one shape. The grader writes fresh inputs into a buffer before each call,
                # so no answer can be prepared ahead or replayed; it validates a secret subset of calls.
                wire_sets, poison = payload["sets"], [n for n in payload["outputs"] if n not in payload["inplace"]]
                sets = [_stage_in(x, device) for x in wire_sets] if staged else wire_sets
                ptrs = [_ptrs(x) for x in sets]
                flush = timing.flush_buffer(device)
                _reply(conn, "set", {"overhead_s": timing.host_overhead(device, flush), "tamper": snap.changed()})
            elif msg == "time1":
                k = payload["set"]
                args = sets[k]
                if staged:  # this call's fresh inputs, from the grader's host copy
                    for n, t in args.items():
                        if isinstance(t, torch.Tensor) and n not in poison:
                            t.copy_(wire_sets[k][n])
                for n in poison:
                    timing.poison_(args[n])
                event_s, host_s = timing.time_one(lambda args=args: fn(**args), device, flush)
                sync()
                now = _ptrs(args)
                moved = sorted(n for n in args if now[n] != ptrs[k][n])
                if staged and not moved:
                    _stage_out(wire_sets[k], args)
                _reply(conn, "timed1", {"event_s": event_s, "host_s": host_s, "moved": moved,
                                        "tamper": snap.changed()})
            else:
                _reply(conn, "runtime_error", f"unknown request {msg!r}")
        except BaseException as exc:  # noqa: BLE001 - the kernel's failure is the answer
            kind = _error_kind(exc)
            try:
                sync()
            except BaseException:  # noqa: BLE001 - a broken device: report the first error
                pass
            _reply(conn, kind, _tb())


if __name__ == "__main__":
    main()
