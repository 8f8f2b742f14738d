"""`kbench serve-local`'s engine: llama.cpp's own OpenAI-compatible server with a model pack.

`LocalModelServer` runs llama.cpp's server (the PyPI wheel `xllamacpp`) in a child process of its own
(`python -m sandbox.servers.llama _child ...`, in its own process group), bound to 127.0.0.1 only, with the
model's own chat template through jinja (tool calls). `stop()` sends SIGTERM, then SIGKILL to the group.
The model file comes from `sandbox.servers.model_pack`.

Never imports dagster; xllamacpp is imported only inside the child process.
"""

from __future__ import annotations

import atexit
import contextlib
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
from collections.abc import Mapping
from pathlib import Path

from sandbox.servers.model_pack import DEFAULT_PACK, LocalModelError, ModelPack, ensure_model, get_pack, say

HOST = "127.0.0.1"  # never anything else: the server has no key and runs code-writing models
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


class LocalModelUnavailable(LocalModelError):
    """Something the local server needs (xllamacpp) is not installed."""


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
            say(f"note: ctx {self.ctx} is below {MIN_AGENT_CTX}, agent sessions may run out of context")
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
        here = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        t0 = time.monotonic()
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "sandbox.servers.llama", "_child", json.dumps(config)],
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
            say(f"error: {e}")
            return 1
        say(f"serving {server.spec.title} as model {server.model_id!r} at {server.url} "
             f"(ctx {server.ctx} x {server.parallel} slot(s), {server.threads} threads, ready in "
             f"{server.ready_s:.1f} s); server log {server.log_path}; Ctrl-C stops")
        while server.running:
            time.sleep(0.5)
        say(f"error: the server exited unexpectedly; last log lines:\n{server.log_tail()}")
        return 1
    except KeyboardInterrupt:
        say("stopping the local model server ...")
        return 0
    finally:
        server.stop()
        if old is not None:
            signal.signal(signal.SIGTERM, old)


# ---------------------------------------------------------------------------------------------------------
# The child process: `python -m sandbox.servers.llama _child CONFIG_JSON`


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
    print("usage: python -m sandbox.servers.llama _child CONFIG_JSON (internal; use `kbench serve-local`)",
          file=sys.stderr)
    sys.exit(2)
