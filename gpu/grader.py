"""Grade one kernel submission for one task: the gate (correctness) first, then speed.

The grader's process generates every input from a secret seed drawn per grading, computes the expected outputs
with its private copy of the reference, and keeps them; the submission runs in its own process (gpu/worker.py),
started fresh per submission in a fresh build folder with its own compiler caches, and killed on timeout. The
outputs it writes are compared here, so nothing in the submission's process can change the verdict except its
outputs. Statuses: compile_error, runtime_error, timeout, incorrect, cheat_rejected, flagged, ok, skipped_no_gpu."""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import multiprocessing as mp
import multiprocessing.connection as mpc
import multiprocessing.util as mpu
import os
import secrets
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.multiprocessing  # noqa: F401  (tensor reductions for the pipe)

from gpu import checks, device as devmod, timing
from gpu.integrity import FileGuard
from gpu.loader import get_task, private_reference
from gpu.models import STATUSES, KernelTask
from gpu.rand import Rand
from sandbox.isolation import IsolationConfig, bwrap_argv, bwrap_path, python_runtime_dirs

FLAG_PEAK_FRACTION = 0.8
FLAG_EAGER_SPEEDUP = 10.0
VALIDATE_PERCENT = 30  # of the timed calls, besides the last one, checked right after they return
WALL_FACTOR, WALL_SLACK_S = 4.0, 0.002  # the grader's clock per call may exceed the sample by this much


@dataclass(frozen=True)
class GradeConfig:
    seeds: int  # correctness seeds per shape and distribution
    warmup: int
    samples: int  # timed calls after the warm-up (a secret extra of up to samples_jitter is added)
    samples_jitter: int
    set_budget_bytes: int  # memory for the rotating input sets of one shape
    eager_samples: int
    # The submission's process inside bubblewrap (sandbox.isolation): its own pid namespace, the system and the
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
                   sandboxed=bwrap_path() is not None)


WORKER_MODULES = ("__init__.py", "worker.py", "timing.py")
TRANSPORTS = ("auto", "direct", "staged")
STAGED_SET_BUDGET = 2**30  # staged input sets live twice (device and host shared memory): keep the host side small


# multiprocessing.util.get_temp_dir() is not thread-safe: two gradings starting at once could each create a
# folder, and a worker sandbox bound to the losing one cannot reach the tensor sharer's socket in the winner.
_MP_DIR_LOCK = threading.Lock()
STDERR_TAIL = 4000


def _mp_temp_dir() -> Path:
    with _MP_DIR_LOCK:
        return Path(mpu.get_temp_dir())


class _StderrTail:
    """Drains the submission's stderr in a thread and keeps only its end, for the reason of a crash: a chatty
    or hostile submission can neither fill a disk nor block on a full pipe."""

    def __init__(self, pipe) -> None:
        self._pipe, self._buf, self._lock = pipe, bytearray(), threading.Lock()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        for chunk in iter(lambda: self._pipe.read1(65536), b""):
            with self._lock:
                self._buf += chunk
                del self._buf[:-STDERR_TAIL]

    def text(self, wait: float = 1.0) -> str:
        self._thread.join(wait)
        with self._lock:
            return self._buf.decode("utf-8", "replace")


class _Timeout(Exception):
    pass


class _Died(Exception):
    pass


class _Forged(Exception):
    """A reply the worker never sends: the submission wrote on the grader's channel itself."""


MAX_REPLY_BYTES = 16 * 2**20
ERROR_KINDS = ("compile_error", "runtime_error")


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _strings(x) -> bool:
    return isinstance(x, list) and all(isinstance(v, str) for v in x)


def check_reply(kind, body, expect: tuple[str, ...]) -> None:
    """The worker's replies have a fixed shape; anything else was written by the submission, not by the worker."""
    if kind not in expect + ERROR_KINDS:
        raise _Forged(f"a {kind!r} reply where {' or '.join(expect)} was due")
    if kind in ERROR_KINDS or kind in ("probe", "pong"):
        ok = isinstance(body, str)
    elif kind == "set":
        ok = isinstance(body, dict) and _number(body.get("overhead_s")) and _strings(body.get("tamper"))
    elif kind == "timed1":
        ok = (isinstance(body, dict) and _number(body.get("host_s"))
              and (body.get("event_s") is None or _number(body.get("event_s")))
              and _strings(body.get("moved")) and _strings(body.get("tamper")))
    elif kind == "ready":
        ok = isinstance(body, dict) and _strings(body.get("tamper"))
    elif kind == "done":
        ok = (isinstance(body, dict) and isinstance(body.get("returned"), bool) and _strings(body.get("forbidden"))
              and _strings(body.get("moved")) and _strings(body.get("tamper")))
    else:
        ok = False
    if not ok:
        raise _Forged(f"a malformed {kind!r} reply")


class _Child:
    """The submission's process: `python -m gpu.worker` in a new session (its own process group), in the build
    folder, with its own environment; it connects back over a Unix socket with a per-grading key."""

    def __init__(self, cfg: dict, env: dict[str, str | None], cwd: Path, connect_timeout: float,
                 sandboxed: bool = False):
        if cfg.get("transport") not in TRANSPORTS:
            raise ValueError(f"transport must be one of {TRANSPORTS}, not {cfg.get('transport')!r}")
        if cfg["transport"] == "auto" and cfg["device"] != "cuda":
            cfg = {**cfg, "transport": "direct"}  # CPU tensors always travel as shared memory
        self.transport, self.transport_note = cfg["transport"], ""
        self.round_trip_s = 0.0
        # the grader's own process key: shared-memory tensors are handed over by a helper that checks it
        key = bytes(mp.current_process().authkey)
        sock = Path(tempfile.mkdtemp(prefix="kgrade-sock-")) / "s"
        self._sockdir = sock.parent
        self.listener = mpc.Listener(str(sock), family="AF_UNIX", authkey=key)
        full_env = {k: v for k, v in os.environ.items() if k not in env or env[k] is not None}
        full_env.update({k: v for k, v in env.items() if v is not None})
        # The worker runs from a copy of the three modules it needs, so the submission cannot import the rest of
        # the grader (the loader would tell it where the private references live).
        rt = self._sockdir / "rt" / "gpu"
        rt.mkdir(parents=True)
        for name in WORKER_MODULES:
            shutil.copy(Path(__file__).parent / name, rt / name)
        full_env["PYTHONPATH"] = str(rt.parent)
        cmd = [sys.executable, "-m", "gpu.worker"]
        if sandboxed:
            cmd, full_env = self._sandbox(cmd, full_env, cwd, sock)
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
        self.stderr = _StderrTail(self.proc.stderr)
        self.proc.stdin.write(json.dumps({"address": str(sock), "key": key.hex(), **cfg}).encode() + b"\n")
        self.proc.stdin.close()
        self.listener._listener._socket.settimeout(connect_timeout)  # accept() must not wait forever
        try:
            self.conn = self.listener.accept()
        except (OSError, mp.AuthenticationError) as exc:
            self._wait(1)
            tail = self.stderr.text().strip()[-1500:]
            self.close()
            why = f"the submission's process never connected ({exc})"
            raise _Died(f"{why}; its stderr:\n{tail}" if tail else why) from None
        if self.transport == "auto":
            try:
                self._probe_transport(connect_timeout)
            except BaseException:
                self.close()  # before the submission is even imported: the grader's failure, raised as such
                raise

    def _probe_transport(self, timeout: float) -> None:
        """Send one device tensor; direct transport only if the worker's write to it comes back."""
        probe = torch.zeros(4, device="cuda")
        try:
            self.conn.send(("probe", probe))
        except Exception as exc:  # noqa: BLE001 - the IPC handle could not be made here
            self.transport_note = f"CUDA IPC unavailable here ({type(exc).__name__}: {exc})"[:300]
            self.conn.send(("probe", None))
        _, answer = self.recv(timeout, ("probe",))
        torch.cuda.synchronize()
        if answer == "ok" and bool((probe == 7).all()):
            self.transport = "direct"
        else:
            self.transport = "staged"
            self.transport_note = self.transport_note or f"CUDA IPC failed in the submission's process ({answer})"[:300]
        self.conn.send(("use", self.transport))

    def to_wire(self, args: dict) -> dict:
        """What travels for `args`: the tensors themselves, or host copies when staged."""
        if self.transport != "staged":
            return args
        return {n: t.cpu() if isinstance(t, torch.Tensor) else t for n, t in args.items()}

    def refill_wire(self, wire: dict, args: dict) -> None:
        """Staged: this call's fresh inputs into the host copies the worker reads (direct: the same tensors)."""
        if self.transport == "staged":
            for n, t in args.items():
                if isinstance(t, torch.Tensor) and wire[n] is not t:
                    wire[n].copy_(t)

    def calibrate(self, timeout: float, n: int = 15) -> float:
        """The median round trip of an empty request, measured before the submission is imported (so it cannot
        slow it down to hide its own time), then the word to import."""
        trips = []
        for _ in range(n):
            t0 = time.monotonic()
            self.request("ping", None, timeout, ("pong",))
            trips.append(time.monotonic() - t0)
        self.round_trip_s = statistics.median(trips)
        self.conn.send(("import", None))
        return self.round_trip_s

    @staticmethod
    def from_wire(wire: dict, args: dict) -> None:
        """Bring what the worker wrote into host copies back into the grader's own tensors."""
        for n, t in args.items():
            if isinstance(t, torch.Tensor) and wire[n] is not t:
                t.copy_(wire[n])

    def _sandbox(self, cmd: list[str], env: dict, build: Path, sock: Path) -> tuple[list[str], dict]:
        """The worker under bwrap: only the build folder is writable; the socket folder (with the copied worker
        modules), this process's multiprocessing folder (tensors travel as file descriptors through a socket
        there) and the Python runtime (venv and its base install) are read-only; nothing else of the host. It
        keeps our uid, without capabilities, since it must connect to our own sockets."""
        cfg = IsolationConfig(mode="bwrap", drop_uid=False)
        home, tmp = self._sockdir / "home", self._sockdir / "tmp"
        home.mkdir()
        tmp.mkdir()
        shared = _mp_temp_dir()
        keep = {k: v for k, v in env.items() if k in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "TORCH_EXTENSIONS_DIR",
                                                      "TRITON_CACHE_DIR", "TRITON_HOME", "CUDA_CACHE_PATH",
                                                      "TRITON_INTERPRET", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS")}
        keep.update(PATH=f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", HOME="/home/kbench",
                    LANG="C.UTF-8")
        argv = bwrap_argv(cmd, build, home, tmp, cfg, ro_binds=[self._sockdir, shared, *python_runtime_dirs()], env=keep,
                          network=False)  # our sockets are paths in the file system: they still connect
        return argv, {"PATH": "/usr/bin:/bin"}

    def _read(self, n: int, deadline: float, timeout: float) -> bytes:
        """n bytes from the worker, or _Timeout at the deadline: a reply that starts and never ends must not hang
        the grader (a blocking read would wait forever)."""
        fd, buf = self.conn.fileno(), bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Timeout(f"no answer within {timeout:.0f} s")
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready:
                if self.proc.poll() is not None and not select.select([fd], [], [], 0)[0]:
                    raise _Died(self._death())
                continue
            try:
                chunk = os.read(fd, n - len(buf))
            except OSError:
                chunk = b""
            if not chunk:
                self._wait(5)
                raise _Died(self._death())
            buf += chunk
        return bytes(buf)

    def recv(self, timeout: float, expect: tuple[str, ...] = ("ready",)):
        """One reply: a length-framed JSON [kind, body] (never a pickle), checked against what was due."""
        deadline = time.monotonic() + max(timeout, 0.01)
        (size,) = struct.unpack("!i", self._read(4, deadline, timeout))
        if size < 0 or size > MAX_REPLY_BYTES:
            raise _Forged(f"a reply of {size} bytes")
        try:
            kind, body = json.loads(self._read(size, deadline, timeout))
        except (ValueError, TypeError, RecursionError):  # nested past the parser's depth: not the worker's either
            raise _Forged("a reply that is not the worker's JSON") from None
        check_reply(kind, body, expect)
        return kind, body

    def request(self, msg: str, payload, timeout: float, expect: tuple[str, ...]):
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()  # the inputs and poison this process queued are complete before the kernel reads
        try:
            self.conn.send((msg, payload))
        except (BrokenPipeError, ConnectionError, OSError):
            self._wait(5)
            raise _Died(self._death()) from None
        return self.recv(timeout, expect)

    def _wait(self, s: float) -> None:
        try:
            self.proc.wait(s)
        except subprocess.TimeoutExpired:
            pass

    def _death(self) -> str:
        code = self.proc.poll()
        if code is None:
            what = "the submission's process stopped answering"
        elif code < 0:
            try:
                what = f"the submission's process was killed by {signal.Signals(-code).name}"
            except ValueError:
                what = f"the submission's process died (signal {-code})"
        else:
            what = f"the submission's process exited with code {code}"
        tail = self.stderr.text().strip()
        return f"{what}; the end of its stderr:\n{tail[-1500:]}" if tail else what

    def close(self, graceful: bool = False) -> None:
        """Kill the submission's process group. On a GPU it first gets a moment to exit on its own, so the CUDA
        memory it mapped from the grader is released cleanly; on a CPU there is nothing to release."""
        conn = getattr(self, "conn", None)
        if conn is not None and graceful:
            try:
                conn.send(("exit", None))
            except (OSError, ValueError):
                pass
            self._wait(5)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the whole group: anything the submission started
        except (ProcessLookupError, PermissionError):
            pass
        self._wait(5)
        if conn is not None:
            conn.close()
        self.listener.close()
        shutil.rmtree(self._sockdir, ignore_errors=True)


def _load_private(path: Path):
    spec = importlib.util.spec_from_file_location(f"kbench_private_ref_{path.parent.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def detect_language(build: Path) -> str:
    """'cuda' (C++/CUDA sources, or Python that builds a torch extension), 'triton', or 'torch'. Reads imports
    and calls, not comments or docstrings."""
    if any(p.suffix in (".cu", ".cuh", ".cpp", ".cc") for p in build.rglob("*") if p.is_file()):
        return "cuda"
    lang = "torch"
    for p in build.rglob("*.py"):
        try:
            tree = ast.parse(p.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if any(m.startswith("torch.utils.cpp_extension") for m in mods):
                return "cuda"
            if isinstance(node, ast.Attribute) and node.attr in ("cpp_extension", "load_inline"):
                return "cuda"
            if any(m == "triton" or m.startswith("triton.") for m in mods):
                lang = "triton"
    return lang


def _not_plain_files(src: Path) -> str | None:
    """The first link or special file in a submission (the file itself, or anything in its folder), if any."""
    if src.is_symlink():
        return f"a link ({src.name} -> {os.readlink(src)})"
    if not src.is_dir():
        return None
    for folder, dirs, files in os.walk(src):
        for name in dirs + files:
            p = Path(folder) / name
            if p.is_symlink():
                return f"a link ({p.relative_to(src)} -> {os.readlink(p)})"
            if name in files and not p.is_file():
                return f"a special file ({p.relative_to(src)})"
    return None


def triton_available() -> bool:
    return importlib.util.find_spec("triton") is not None and importlib.util.find_spec("numpy") is not None


def reference_submission(task: KernelTask, folder: Path) -> Path:
    """A submission that calls the agent-visible reference and copies its results into the outputs: the gate
    every task's reference must pass."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(task.folder / "reference.py", folder / "reference.py")
    outs = ", ".join(f"{n!r}" for n in task.outputs)
    ins = ", ".join(f"{n}={n}" for n in task.inputs)
    (folder / task.stub).write_text(
        "from reference import reference\n\n\n"
        f"def {task.entry}({', '.join(task.kernel_args())}):\n"
        f"    got = reference({ins})\n"
        "    got = got if isinstance(got, tuple) else (got,)\n"
        f"    for name, value in zip(({outs},), got):\n"
        "        locals()[name].copy_(value)\n"
    )
    return folder


def _copy(x):
    return x.clone() if isinstance(x, torch.Tensor) else x


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


class _Case:
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


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def grade(submission: Path | str, task: KernelTask | str, *, role: str = "candidate", device: str | None = None,
          private_root: Path | None = None, config: GradeConfig | None = None, keep_build: bool = False) -> dict:
    """Grade `submission` (a file: the stub, filled in; or a folder holding it) for `task`. Returns a dict ready
    to store. role='reference' only lifts the forbidden-op rule (the eager reference may call library ops)."""
    t0 = time.monotonic()
    task = task if isinstance(task, KernelTask) else get_task(task, private_root=private_root)
    dev = devmod.pick_device(device)
    cfg = config or GradeConfig.for_device(dev)
    info = devmod.device_info(dev)
    result: dict = {
        "task": task.id, "status": None, "reason": "", "score": None, "unit": task.unit, "metric": task.metric,
        "role": role, "submission": str(submission), "language": None, "device": info, "shapes": [],
        "correctness": {"cases": 0, "passed": False}, "flags": [], "config": asdict(cfg), "seed": None,
    }

    def finish(status: str, reason: str = "", score: float | None = None) -> dict:
        assert status in STATUSES
        result.update(status=status, reason=reason,
                      score=(0.0 if status not in ("ok", "flagged", "skipped_no_gpu") else score))
        result["elapsed_s"] = round(time.monotonic() - t0, 3)
        return result

    build = Path(tempfile.mkdtemp(prefix=f"kgrade-{task.id}-"))
    try:
        src = Path(submission)
        odd = _not_plain_files(src)
        if odd:
            return finish("compile_error", f"the submission holds {odd}: only plain files are graded (a link would "
                                           "bring the grader's or the host's files into the build)")
        if src.is_dir():
            shutil.copytree(src, build, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
        elif src.is_file():
            shutil.copy(src, build / task.stub)
        else:
            return finish("compile_error", f"submission {src} does not exist")
        entry_file = build / task.stub
        if not entry_file.is_file():
            return finish("compile_error", f"the submission has no {task.stub}")
        lang = detect_language(build)
        result["language"] = lang
        interpret = False
        if dev == "cpu" and lang == "cuda":
            return finish("skipped_no_gpu", "CUDA C++ submissions need a GPU to build and run")
        if dev == "cpu" and lang == "triton":
            if not triton_available():
                return finish("skipped_no_gpu", "Triton is not installed here, and its CPU interpreter needs it")
            interpret = True
        return _grade_in_child(task, role, dev, cfg, build, entry_file, interpret, private_root, result, finish)
    finally:
        if keep_build:
            result["build"] = str(build)
        else:
            shutil.rmtree(build, ignore_errors=True)


def _grade_in_child(task, role, dev, cfg, build, entry_file, interpret, private_root, result, finish) -> dict:
    ref_path = private_reference(task.id, private_root)
    # In the sandbox the worker sees none of the grader's files, so only this task's reference is re-checked; out
    # of it (on a GPU, for now) it runs with our rights, so every file of ours is.
    guard = FileGuard([ref_path] if cfg.sandboxed else [Path(__file__).parent, ref_path.parent.parent])
    try:
        return _grade_guarded(task, role, dev, cfg, build, entry_file, interpret, result, finish, ref_path, guard)
    finally:
        guard.restore()  # whatever ended the grading, even an exception, no edit of ours outlives it


def _grade_guarded(task, role, dev, cfg, build, entry_file, interpret, result, finish, ref_path, guard) -> dict:
    ref = _load_private(ref_path)
    cache = build / ".cache"
    env = {
        "TORCH_EXTENSIONS_DIR": str(cache / "torch_extensions"),
        "TRITON_CACHE_DIR": str(cache / "triton"),
        "TRITON_HOME": str(cache / "triton_home"),
        "CUDA_CACHE_PATH": str(cache / "nv"),
        "TRITON_INTERPRET": "1" if interpret else None,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    child_cfg = {"build": str(build), "file": str(entry_file), "entry": task.entry, "device": dev,
                 "outputs": list(task.outputs), "transport": cfg.transport,
                 "forbidden": [] if role == "reference" else list(task.forbidden_ops)}
    seed_root = secrets.randbits(62)  # secret for the grading; recorded only in the result, after it
    rng = Rand(seed_root, "normal", "cpu")
    deadline = time.monotonic() + task.timeouts.total_s
    public, hidden = task.shapes.for_device(dev)
    shapes = [("public", s) for s in public] + [("hidden", s) for s in hidden]
    child = _Child(child_cfg, env, build, task.timeouts.compile_s, sandboxed=cfg.sandboxed)
    result["transport"] = child.transport + (f" ({child.transport_note})" if child.transport_note else "")
    set_budget = cfg.set_budget_bytes if child.transport != "staged" else min(cfg.set_budget_bytes, STAGED_SET_BUDGET)
    try:
        def left(limit: float) -> float:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout(f"grading ran past its {task.timeouts.total_s:.0f} s limit")
            return min(limit, remaining)

        def verdict_of(kind: str, body, what: str):
            if kind in ("compile_error", "runtime_error"):
                return finish(kind, f"{what}: {str(body).strip()[-1500:]}")
            if body.get("tamper"):
                return finish("cheat_rejected", f"{what}: the submission replaced {', '.join(body['tamper'][:5])}")
            if body.get("moved"):
                return finish("cheat_rejected", f"{what}: the kernel re-pointed or resized {', '.join(body['moved'])}"
                                                " (outputs must be written in place, never swapped for other storage)")
            if body.get("forbidden"):
                return finish("cheat_rejected", f"{what}: forbidden operators called: {', '.join(body['forbidden'])}")
            return None

        def tampered_reference() -> dict | None:
            fixed = guard.restore()
            if fixed:
                what = "private reference was" if fixed == [str(ref_path.resolve())] else "own files were"
                return finish("cheat_rejected", f"the grader's {what} modified during grading (restored): "
                                                f"{', '.join(fixed[:4])}")
            return None

        try:
            child.calibrate(left(task.timeouts.compile_s))
            kind, body = child.recv(left(task.timeouts.compile_s), ("ready",))
            if kind != "ready":
                return tampered_reference() or finish(kind, f"build/import: {str(body).strip()[-1500:]}")
            v = verdict_of(kind, body, "import")
            if v:
                return v

            # --- the gate: every shape x seed x distribution, fresh inputs, poisoned outputs ---
            n_cases = 0
            for group, shape in shapes:
                for dist in task.distributions:
                    for _ in range(cfg.seeds):
                        case = _Case(task, ref, shape, int(rng.randint(0, 2**62, 1)), dist, dev)
                        wire = child.to_wire(case.args)
                        kind, body = child.request("call", wire, left(task.timeouts.call_s), ("done",))
                        v = verdict_of(kind, body, f"{group} shape {shape}, {dist} inputs")
                        if v:
                            return tampered_reference() or v
                        child.from_wire(wire, case.args)
                        n_cases += 1
                        why = case.check(task)
                        if why:
                            if body.get("returned"):
                                why += " (the kernel returned a value: results must be written into the outputs)"
                            return tampered_reference() or finish("incorrect", f"{group} shape {shape}, {dist} inputs: {why}")
            result["correctness"] = {"cases": n_cases, "passed": True, "seeds": cfg.seeds,
                                     "distributions": list(task.distributions), "shapes": len(shapes)}
            if interpret:
                return tampered_reference() or finish(
                    "skipped_no_gpu", "correct under the Triton CPU interpreter; timing a Triton kernel needs a GPU")

            # --- speed: one call at a time on rotating buffers; fresh inputs before every call (nothing can be
            # prepared ahead or replayed); a secret subset of calls, and the last, validated right after the call ---
            flush = timing.flush_buffer(dev)
            for group, shape in shapes:
                n_calls = cfg.warmup + cfg.samples + secrets.randbelow(cfg.samples_jitter + 1)
                probe = _Case(task, ref, shape, int(rng.randint(0, 2**62, 1)), task.distributions[0], dev)
                n_sets = max(2, min(n_calls, set_budget // max(probe.nbytes(), 1)))
                cases = [probe] + [_Case(task, ref, shape, int(rng.randint(0, 2**62, 1)),
                                         task.distributions[i % len(task.distributions)], dev)
                                   for i in range(1, n_sets)]
                wires = [child.to_wire(c.args) for c in cases]
                kind, body = child.request("time_setup", {"sets": wires, "outputs": list(task.outputs),
                                                          "inplace": list(task.inplace)},
                                           left(task.timeouts.call_s), ("set",))
                v = verdict_of(kind, body, f"timing {group} shape {shape}")
                if v:
                    return tampered_reference() or v
                overhead = float(body["overhead_s"])
                samples, walls = [], []
                for k in range(n_calls):
                    c, wire = cases[k % n_sets], wires[k % n_sets]
                    check_this = k == n_calls - 1 or secrets.randbelow(100) < VALIDATE_PERCENT
                    dist = task.distributions[k % len(task.distributions)]
                    c.refresh(task, ref, shape, int(rng.randint(0, 2**62, 1)), dist, dev, expect=check_this)
                    child.refill_wire(wire, c.args)
                    w0 = time.monotonic()
                    kind, body = child.request("time1", {"set": k % n_sets}, left(task.timeouts.call_s), ("timed1",))
                    walls.append(time.monotonic() - w0)
                    v = verdict_of(kind, body, f"timing {group} shape {shape}")
                    if v:
                        return tampered_reference() or v
                    if check_this:
                        child.from_wire(wire, c.args)
                        why = c.check(task)
                        if why:
                            return tampered_reference() or finish(
                                "incorrect", f"timing {group} shape {shape}: timed call {k + 1} of {n_calls} failed "
                                             f"validation: {why}")
                    if k >= cfg.warmup:
                        samples.append(timing.sample(body["event_s"], body["host_s"], overhead))
                median = statistics.median(samples)
                eager = _time_eager(task, ref, cases, cfg, dev, flush)
                work = task.work(shape)
                scale = 1e12 if task.metric == "tflops" else 1e9
                result["shapes"].append({
                    "group": group, "shape": shape, "work": work, "median_s": median,
                    "min_s": min(samples), "samples": len(samples), "input_sets": n_sets,
                    "achieved": work / median / scale if median > 0 else float("inf"),
                    "eager_median_s": eager, "speedup_vs_eager": eager / median if median > 0 else float("inf"),
                    "grader_wall_median_s": statistics.median(walls[cfg.warmup:]),
                })
            bad = tampered_reference()
            if bad:
                return bad
        except _Timeout as exc:
            return tampered_reference() or finish("timeout", str(exc))
        except _Died as exc:
            return tampered_reference() or finish("runtime_error", str(exc))
        except _Forged as exc:
            return tampered_reference() or finish(
                "cheat_rejected", f"the grader received {exc}: the submission wrote on the grader's channel")
    finally:
        child.close(graceful=dev == "cuda")

    # --- score and audit ---
    late = tampered_reference()  # once more, now that the submission's process group is gone
    if late:
        return late
    result["seed"] = seed_root
    achieved = [s["achieved"] for s in result["shapes"]]
    if any(not math.isfinite(a) or a <= 0 for a in achieved):
        return finish("cheat_rejected", "a timed call took no measurable time")
    score = _geomean(achieved)
    pk, source = devmod.peak(result["device"], task.metric, task.dtype)
    result["peak"] = {"value": pk, "source": source}
    if pk is not None:
        over = [s for s in result["shapes"] if s["achieved"] > pk]
        if over:
            return finish("cheat_rejected", f"{over[0]['achieved']:.1f} {task.unit} on {over[0]['shape']} is above "
                                            f"the device's physical peak {pk:.1f} {task.unit}")
        if any(s["achieved"] > FLAG_PEAK_FRACTION * pk for s in result["shapes"]):
            result["flags"].append(f"above {FLAG_PEAK_FRACTION:.0%} of the physical peak ({pk:.1f} {task.unit})")
    fast = [s for s in result["shapes"] if s["speedup_vs_eager"] > FLAG_EAGER_SPEEDUP]
    if fast:
        result["flags"].append(f"{fast[0]['speedup_vs_eager']:.1f}x faster than the eager reference on {fast[0]['shape']}")
    # The grader's own clock around each call (request to reply) against what the worker reported: an honest
    # call costs its sample plus a round trip and the output poisoning, a few times the sample at most. Only on a
    # GPU, where gradings run one at a time: on a shared CPU the scheduler's delays swamp it.
    rtt = result["round_trip_s"] = child.round_trip_s
    odd = [s for s in result["shapes"] if dev == "cuda"
           and s["grader_wall_median_s"] - rtt > WALL_FACTOR * s["median_s"] + WALL_SLACK_S]
    if odd:
        result["flags"].append(f"the grader's clock saw {odd[0]['grader_wall_median_s'] * 1e6:.0f} us per call on "
                               f"{odd[0]['shape']} against {odd[0]['median_s'] * 1e6:.0f} us reported")
    if result["flags"]:
        return finish("flagged", "; ".join(result["flags"]), score)
    return finish("ok", "", score)


def _time_eager(task: KernelTask, ref, cases: list[_Case], cfg: GradeConfig, dev: str, flush) -> float:
    """Median time of the private reference (eager torch), for the 10x audit flag, on the grader's own copies of
    the sets' inputs: the shared buffers are the submission's to scribble on."""
    sets = [{n: _copy(t) for n, t in c.pristine.items()} for c in cases]
    with torch.no_grad():
        fn = getattr(ref, "eager", ref.reference)
        timed = timing.time_calls(lambda k: fn(**sets[k % len(sets)]), lambda k: None,
                                  cfg.warmup + cfg.eager_samples, dev, flush)
    return statistics.median(timing.samples_from(timed, cfg.warmup))
