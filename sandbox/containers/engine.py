"""The Docker engine the container sandbox and the container deployment talk to: found, or started by us.

No engine runs on these machines by default. `make docker-engine` starts Debian's dockerd into a folder the project
owns (its own socket, data root and pid file; no iptables rules, no bridge: containers get either no network or
the host's), and `make docker-engine-stop` ends it. Which engine a client reaches: $KBENCH_DOCKER_HOST, else
$DOCKER_HOST, else ours when its socket exists, else Docker's default socket.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_SOCKET = "/var/run/docker.sock"
START_HINT = "make docker-engine"


class EngineUnavailable(RuntimeError):
    """No Docker engine answers: the message names the socket tried and how to start one."""


def state_dir() -> Path:
    return Path(os.environ.get("KBENCH_DOCKER_DIR") or Path.home() / ".cache" / "kbench" / "docker")


def own_socket() -> Path:
    return state_dir() / "docker.sock"


def engine_url() -> str:
    for var in ("KBENCH_DOCKER_HOST", "DOCKER_HOST"):
        if os.environ.get(var):
            return os.environ[var]
    sock = own_socket()
    return f"unix://{sock}" if sock.exists() else f"unix://{DEFAULT_SOCKET}"


def client(timeout: int = 120):
    """A client of the engine, checked to answer; EngineUnavailable otherwise."""
    import docker  # brought by dagster-docker; imported here so the sandbox needs it only for this backend

    url = engine_url()
    try:
        c = docker.DockerClient(base_url=url, timeout=timeout)
        c.ping()
    except Exception as e:  # the SDK raises several kinds (connection refused, missing socket, permission)
        raise EngineUnavailable(
            f"no Docker engine answers at {url} ({type(e).__name__}): start one with `{START_HINT}` "
            "(Debian's docker.io, run by the project), or point KBENCH_DOCKER_HOST at a running engine") from None
    return c


def require_image(name: str) -> None:
    """EngineUnavailable unless the engine answers and holds `name`."""
    import docker

    try:
        client(timeout=10).images.get(name)
    except docker.errors.ImageNotFound:
        raise EngineUnavailable(f"the Docker engine at {engine_url()} has no image {name}: build the sandbox's "
                                "base image with `make docker-image`") from None


def _pid() -> int | None:
    try:
        pid = int((state_dir() / "dockerd.pid").read_text())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def start(wait_s: float = 60.0) -> str:
    """Start our own dockerd unless it runs; returns its URL. Needs root (dockerd does) and Debian's docker.io."""
    d = state_dir()
    if _pid():
        return f"unix://{own_socket()}"
    dockerd = shutil.which("dockerd") or "/usr/sbin/dockerd"
    if not os.path.exists(dockerd):
        raise EngineUnavailable("dockerd is not installed: apt-get install docker.io (make docker-engine does)")
    for sub in ("data", "exec"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    own_socket().unlink(missing_ok=True)
    log = open(d / "dockerd.log", "ab")
    # containerd's own state goes under the exec root too: nothing of ours in /run or /var/lib/docker
    subprocess.Popen([dockerd, "--host", f"unix://{own_socket()}", "--data-root", str(d / "data"),
                      "--exec-root", str(d / "exec"), "--pidfile", str(d / "dockerd.pid"), "--iptables=false",
                      "--ip-masq=false", "--bridge=none"],
                     stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + wait_s
    os.environ["KBENCH_DOCKER_HOST"] = f"unix://{own_socket()}"
    while True:
        try:
            client(timeout=5)
            return os.environ["KBENCH_DOCKER_HOST"]
        except EngineUnavailable:
            if time.monotonic() > deadline:
                raise EngineUnavailable(f"dockerd did not answer within {wait_s:g}s: see {d / 'dockerd.log'}") from None
            time.sleep(0.5)


def stop(wait_s: float = 30.0) -> bool:
    """Stop our dockerd (its containers first) and wait until it is gone; False when it was not running."""
    pid = _pid()
    if not pid:
        return False
    try:
        os.environ["KBENCH_DOCKER_HOST"] = f"unix://{own_socket()}"
        c = client(timeout=10)
        for ctr in c.containers.list(all=True):
            ctr.remove(force=True)
    except EngineUnavailable:
        pass
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while _pid() and time.monotonic() < deadline:
        time.sleep(0.2)
    if _pid():
        os.kill(pid, signal.SIGKILL)
    return True


def run_with_engine(cmd: list[str]) -> int:
    """Run `cmd` with an engine up: ours is started for it when none answers, and stopped after, so a test run
    leaves no daemon behind that it did not find."""
    try:
        client(timeout=5)
        started = False
    except EngineUnavailable:
        start()
        started = True
    env = {**os.environ, "KBENCH_DOCKER_HOST": engine_url()}
    try:
        return subprocess.call(cmd, env=env)
    finally:
        if started:
            stop()


def main(argv: list[str]) -> int:
    action = argv[0] if argv else "status"
    try:
        if action == "run" and argv[1:2] == ["--"]:
            return run_with_engine(argv[2:])
        if action == "start":
            print(f"docker engine: {start()}")
        elif action == "stop":
            print("docker engine stopped" if stop() else "docker engine was not running")
        elif action == "status":
            client(timeout=5)
            print(f"docker engine answers at {engine_url()}")
        else:
            print(f"usage: python -m sandbox.containers.engine start|stop|status|run -- CMD... (not {action!r})",
                  file=sys.stderr)
            return 2
    except EngineUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
