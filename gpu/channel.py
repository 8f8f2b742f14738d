"""The channel between the grader and the submission's process (gpu/worker.py): starting it (in bubblewrap when
asked), handing tensors over, and reading its replies as length-framed JSON with a deadline, each checked against
the reply that was due. Anything else on the channel was written by the submission, never by the worker."""

from __future__ import annotations

import json
import multiprocessing as mp
import multiprocessing.connection as mpc
import multiprocessing.util as mpu
import os
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
from pathlib import Path

import torch
import torch.multiprocessing  # noqa: F401  (tensor reductions for the pipe)

from sandbox.isolation.bwrap import IsolationConfig, bwrap_argv, python_runtime_dirs
from sandbox.isolation.trees import remove_tree

WORKER_MODULES = ("__init__.py", "worker.py", "timing.py")
TRANSPORTS = ("auto", "direct", "staged")

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


class ReplyTimeout(Exception):
    pass


class WorkerDied(Exception):
    pass


class ForgedReply(Exception):
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
        raise ForgedReply(f"a {kind!r} reply where {' or '.join(expect)} was due")
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
        raise ForgedReply(f"a malformed {kind!r} reply")


class WorkerProcess:
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
            raise WorkerDied(f"{why}; its stderr:\n{tail}" if tail else why) from None
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
        argv = bwrap_argv(cmd, build, home, tmp, cfg, ro_binds=[self._sockdir, shared, *python_runtime_dirs()],
                          env=keep, network=False)  # our sockets are paths in the file system: they still connect
        return argv, {"PATH": "/usr/bin:/bin"}

    def _read(self, n: int, deadline: float, timeout: float) -> bytes:
        """n bytes from the worker, or ReplyTimeout at the deadline: a reply that starts and never ends must not hang
        the grader (a blocking read would wait forever)."""
        fd, buf = self.conn.fileno(), bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ReplyTimeout(f"no answer within {timeout:.0f} s")
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready:
                if self.proc.poll() is not None and not select.select([fd], [], [], 0)[0]:
                    raise WorkerDied(self._death())
                continue
            try:
                chunk = os.read(fd, n - len(buf))
            except OSError:
                chunk = b""
            if not chunk:
                self._wait(5)
                raise WorkerDied(self._death())
            buf += chunk
        return bytes(buf)

    def recv(self, timeout: float, expect: tuple[str, ...] = ("ready",)):
        """One reply: a length-framed JSON [kind, body] (never a pickle), checked against what was due."""
        deadline = time.monotonic() + max(timeout, 0.01)
        (size,) = struct.unpack("!i", self._read(4, deadline, timeout))
        if size < 0 or size > MAX_REPLY_BYTES:
            raise ForgedReply(f"a reply of {size} bytes")
        try:
            kind, body = json.loads(self._read(size, deadline, timeout))
        except (ValueError, TypeError, RecursionError):  # nested past the parser's depth: not the worker's either
            raise ForgedReply("a reply that is not the worker's JSON") from None
        check_reply(kind, body, expect)
        return kind, body

    def request(self, msg: str, payload, timeout: float, expect: tuple[str, ...]):
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()  # the inputs and poison this process queued are complete before the kernel reads
        try:
            self.conn.send((msg, payload))
        except (BrokenPipeError, ConnectionError, OSError):
            self._wait(5)
            raise WorkerDied(self._death()) from None
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
        remove_tree(self._sockdir, ignore_errors=True)  # its HOME and /tmp were the submission's to fill

