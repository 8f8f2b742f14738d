"""A sandbox session as a Docker container, shaped like the Popen the session loop drives (session.py).

The same guarantees as bubblewrap, given by the engine: the image's system read-only and the work folder the one
writable place (plus the session's own HOME and /tmp, host folders the disk watchdog measures), an unprivileged
uid with no capabilities and no new privileges, the same seccomp refusals, its own pid and IPC namespaces, no
network (or the host's, as bwrap's shared namespace), and the file-size, process and core limits as ulimits. The
host's watchdogs see the container's processes as descendants of its init (tini), so memory, process and disk
limits are enforced and recorded exactly as for bwrap; the cgroup's own memory and pid limits sit above them as
a backstop. Removing the container ends every process in it: nothing outlives a session. An image with an
ENTRYPOINT is the one exception to the uid: its entrypoint runs first, as root with a few capabilities, and the
session's command then drops to the uid (entrypoint.py).
"""

from __future__ import annotations

import json
import re
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from sandbox.containers import engine, entrypoint, image
from sandbox.isolation import seccomp
from sandbox.isolation.bwrap import check_work_mounts
from sandbox.isolation.limits import MB, Limits
from sandbox.isolation.procs import session_processes
from task_defs.models import env_problem

LABEL = "kbench.sandbox"
# what a container stopped from outside reports: SIGKILL (docker kill, a forced removal) or SIGTERM (docker stop,
# passed on by its init)
OUTSIDE_EXITS = (137, 143)


class ContainerLost(RuntimeError):
    """The sandbox container was killed or removed by something other than the session: an infra failure."""


def seccomp_profile() -> str:
    """The seccomp filter of sandbox/isolation/seccomp.py, as the JSON profile the engine loads."""
    return json.dumps({"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86",
                                                                            "SCMP_ARCH_X32"],
                       "syscalls": [{"names": list(seccomp.DENIED), "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]})


class _Frames:
    """The attach stream without a TTY interleaves stdout and stderr in frames (8-byte header: stream, 0, 0, 0,
    length); read1 gives the payload bytes in order, both streams together, as a merged pipe would."""

    def __init__(self, sock: socket.socket):
        self.sock, self.left, self.buf = sock, 0, b""

    def _recv(self, n: int) -> bytes:
        try:
            return self.sock.recv(n)
        except OSError:
            return b""

    def read1(self, n: int) -> bytes:
        while True:
            if self.left:
                chunk = self.buf[: min(self.left, n)] if self.buf else self._recv(min(self.left, n))
                if self.buf:
                    self.buf = self.buf[len(chunk):]
                if not chunk:
                    return b""
                self.left -= len(chunk)
                return chunk
            while len(self.buf) < 8:
                more = self._recv(65536)
                if not more:
                    return b""
                self.buf += more
            self.left = struct.unpack(">I", self.buf[4:8])[0]
            self.buf = self.buf[8:]


@dataclass(frozen=True)
class ImageConfig:
    env: tuple[tuple[str, str], ...]  # its ENV, in order
    entrypoint: tuple[str, ...]  # its ENTRYPOINT, empty where it has none


_IMAGES: dict[str, ImageConfig] = {}  # by image name: a name is one content here


def _image_config(client, name: str) -> ImageConfig:
    if name not in _IMAGES:
        config = client.api.inspect_image(name)["Config"]
        env = config.get("Env") or []
        _IMAGES[name] = ImageConfig(tuple(tuple(item.split("=", 1)) for item in env if "=" in item),  # type: ignore
                                    tuple(config.get("Entrypoint") or ()))
    return _IMAGES[name]


def writable_path(word: str, writable: list[str]) -> bool:
    """A relative path, or one in or under a place the session can write."""
    word = word.strip()
    return not word.startswith("/") or entrypoint.under(word, writable)


def _guarded(image_env, ours: dict[str, str], writable: list[str]) -> dict[str, str]:
    """The image's own variables that would make a shell, loader or interpreter of the session load a file from a
    place the session can write (the work folder and its mounts, HOME, /tmp), or from a relative path: set empty
    here, so no session, the judge's least of all, runs what the agent left there. The image's others stand."""
    out = {}
    for name, value in image_env:
        if name in ours or not env_problem(name):
            continue
        if any(writable_path(w, writable) for w in re.split(r"[:\s]+", value) if w):
            out[name] = ""
    return out


def image_path(name: str, writable: list[str] = ()) -> str | None:
    """The image's own ENV PATH, less its relative folders and those in `writable`; None where it sets none."""
    config = _IMAGES.get(name) or _image_config(engine.client(), name)
    path = dict(config.env).get("PATH")
    if path is None:
        return None
    return ":".join(p for p in path.split(":") if p and not writable_path(p, list(writable)))


def _create_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def _mount(src, dest: str, read_only: bool):
    from docker.types import Mount

    return Mount(target=dest, source=str(src), type="bind", read_only=read_only)


class ContainerProcess:
    """One sandbox container: pid (its init, as the host sees it), stdout (frames), wait, kill, returncode."""

    def __init__(self, cmd: list[str], workdir: Path, home: Path, tmp: Path, *, uid: int, limits: Limits,
                 env: dict[str, str], ro_binds: list, rw_binds: list, work_mounts, network: bool, label: str,
                 image_name: str | None = None, cpus: float | None = None):
        self.client = engine.client()
        check_work_mounts(Path(workdir), tuple(work_mounts))
        mounts = [_mount(workdir, str(workdir), False), _mount(home, env["HOME"], False)]
        if not any(dest == "/tmp" for _rel, dest in work_mounts):  # else the work folder is the session's /tmp
            mounts.append(_mount(tmp, "/tmp", False))
        for b in ro_binds:
            src, dest = (b[0], b[1]) if isinstance(b, tuple) else (b, str(b))
            mounts.append(_mount(src, dest, True))
        mounts += [_mount(src, dest, False) for src, dest in rw_binds]
        mounts += [_mount(workdir if rel == "." else workdir / rel, dest, False) for rel, dest in work_mounts]
        from docker.types import Ulimit

        name = image_name or image.image_name()
        writable = [str(workdir), env["HOME"], "/tmp", *(dest for _src, dest in rw_binds),
                    *(dest for _rel, dest in work_mounts)]
        config = _image_config(self.client, name)
        env = {**env, **_guarded(config.env, env, writable)}
        command, user, caps, tmpfs = list(cmd), f"{uid}:{uid}", None, None
        if config.entrypoint:  # run first, as root, as Harbor runs it (entrypoint.py)
            bad = entrypoint.runs_writable(list(config.entrypoint), writable)
            if bad:
                raise RuntimeError(f"the image's ENTRYPOINT runs {bad}, which the session can write: it would run "
                                   "as root before every session, the judge's too")
            mounts.append(_mount(entrypoint.hosts_file(Path(home).parent), "/etc/hosts", False))
            command, user = entrypoint.command(list(cmd), uid), "0:0"
            caps, tmpfs = entrypoint.CAPABILITIES, entrypoint.TMPFS
        memory = 2 * limits.rss_limit_bytes + 512 * MB  # well above the watchdog, which acts first
        self.killed_by_us = False
        self.returncode: int | None = None
        self.container = self.client.api.create_container(
            name, command=command, user=user, working_dir=str(workdir),
            environment=env, hostname="kbench", stdin_open=True, tty=False,
            labels={LABEL: label},
            host_config=self.client.api.create_host_config(
                mounts=mounts, read_only=True, network_mode="host" if network else "none", init=True,
                cap_drop=["ALL"], cap_add=caps, tmpfs=tmpfs,
                security_opt=["no-new-privileges", f"seccomp={seccomp_profile()}"],
                mem_limit=memory, memswap_limit=memory, pids_limit=limits.nproc_rlimit, ipc_mode="private",
                nano_cpus=int(cpus * 1e9) if cpus else None,
                ulimits=[Ulimit(name="fsize", soft=limits.fsize_bytes, hard=limits.fsize_bytes),
                         Ulimit(name="nproc", soft=limits.nproc_rlimit, hard=limits.nproc_rlimit),
                         Ulimit(name="core", soft=0, hard=0)]))["Id"]
        try:
            raw = self.client.api.attach_socket(self.container, params={"stdin": 1, "stdout": 1, "stderr": 1,
                                                                        "stream": 1})
            self._sock = getattr(raw, "_sock", raw)
            self.stdout = _Frames(self._sock)
            self.client.api.start(self.container)
            self.pid = self.client.api.inspect_container(self.container)["State"]["Pid"]
            self._born = _create_time(self.pid)
        except BaseException:
            self.remove()
            raise

    def processes(self) -> dict:
        """Every process of the container, as the host sees them: its init and what descends from it. The init is
        not our child, so once it has ended its pid may be another process's: then there are none."""
        if not self.pid or _create_time(self.pid) != self._born:
            return {}
        return session_processes(self.pid)

    def feed(self, data: bytes | None) -> None:
        """The command's stdin: `data`, then end of file (without data, end of file at once)."""
        try:
            if data:
                self._sock.sendall(data)
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        done: dict = {}

        def waiter() -> None:
            try:
                done["status"] = self.client.api.wait(self.container)["StatusCode"]
            except Exception as e:  # the engine went away: reported by the caller as infra
                done["error"] = e

        t = threading.Thread(target=waiter, daemon=True)
        t.start()
        t.join(timeout)
        if t.is_alive():
            raise subprocess.TimeoutExpired("container", timeout)
        if "error" in done:
            raise ContainerLost(f"the Docker engine stopped answering during the session: {done['error']}")
        self.returncode = done["status"]
        return self.returncode

    def kill(self) -> None:
        self.killed_by_us = True
        try:
            self.client.api.kill(self.container)
        except Exception:  # already gone: the kill's purpose is met
            pass

    def outside_kill(self) -> str | None:
        """Why the container ended other than by its own command or our watchdog, if it did: an infra failure."""
        if self.killed_by_us or self.returncode not in OUTSIDE_EXITS:
            return None
        state = self.client.api.inspect_container(self.container)["State"]
        if state.get("OOMKilled"):
            return None  # the cgroup backstop: the session's own memory, recorded as such by the caller
        since = int(time.time()) - 86400
        events = self.client.api.events(since=since, until=int(time.time()) + 1, decode=True,
                                        filters={"container": self.container, "event": "kill"})
        signals = [e.get("Actor", {}).get("Attributes", {}).get("signal") for e in events]
        if signals:
            return f"the sandbox container was killed from outside the session (signal {signals[-1]})"
        return None

    def oom_killed(self) -> bool:
        try:
            return bool(self.client.api.inspect_container(self.container)["State"].get("OOMKilled"))
        except Exception:
            return False

    def remove(self) -> None:
        try:
            self.client.api.remove_container(self.container, force=True)
        except Exception:  # removed already, or the engine is gone with it
            pass
        try:
            self._sock.close()
        except (AttributeError, OSError):
            pass
