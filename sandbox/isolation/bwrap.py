"""How a session is isolated: bubblewrap when present, else plain processes (and the result says so); a Docker
container when asked (sandbox/containers/)."""

from __future__ import annotations

import glob
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sandbox.isolation import seccomp

Isolation = Literal["bwrap", "docker", "none"]
ISOLATION_MODES = ("auto", "bwrap", "docker", "none")  # what a user may ask for (--isolation)
CONTAINED = ("bwrap", "docker")  # the isolations that give a session its own system view, HOME, /tmp and uid
NOBODY = 65534
INSIDE_HOME = "/home/kbench"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def python_runtime_dirs() -> list[str]:
    """This interpreter's folders (the venv and the install it is based on), to bind read-only into a sandbox."""
    return sorted({str(Path(sys.prefix).resolve()), str(Path(sys.base_prefix).resolve())})


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def sandbox_python() -> str:
    """The interpreter agents and hidden tests get: the system one, visible inside bwrap."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else (shutil.which("python3") or "python3")


@dataclass(frozen=True)
class IsolationConfig:
    mode: Literal["auto", "bwrap", "docker", "none"] = "auto"
    # As root, sandboxed processes drop to this uid so RLIMIT_NPROC (which root ignores) applies.
    run_as_uid: int = NOBODY
    drop_uid: bool = True  # False keeps root (without capabilities) inside bwrap: for peers sharing root-owned sockets
    extra_ro_binds: tuple[str, ...] = field(default_factory=tuple)  # read-only at the same path, e.g. a Python runtime
    path_prefix: tuple[str, ...] = field(default_factory=tuple)  # folders put before the system PATH in the session
    seccomp: bool = True  # no process in the sandbox may trace another or touch its memory (seccomp.py)
    # (folder inside the work folder, "." for itself; the path it is also seen at): a task made for a container
    # whose files live at /app, its tests at /tests (task_defs Task.mounts). Only bwrap can show them.
    work_mounts: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    image: str | None = None  # docker: the image sessions run in (default: the base image, containers/image.py)
    env: tuple[tuple[str, str], ...] = ()  # the task's own variables (a Dockerfile's ENV), in every session of it
    # the task's own resources (Task.cpus, memory_mb, storage_mb), over the run's limits in every session of it
    cpus: float | None = None
    memory_mb: int | None = None
    storage_mb: int | None = None

    def resolve(self) -> Isolation:
        if self.mode == "bwrap":
            if not bwrap_path():
                raise RuntimeError("isolation 'bwrap' asked for, but bwrap is not installed "
                                   "(apt-get install bubblewrap)")
            return "bwrap"
        if self.mode in ("none", "docker"):
            return self.mode
        return "bwrap" if bwrap_path() else "none"

    def preflight(self) -> None:
        """Before a run starts: a docker sandbox needs an engine that answers and its image built; either missing
        stops the run here with what to do, rather than failing every attempt as infra."""
        if self.mode == "docker":
            from sandbox.containers import engine, image

            engine.require_image(self.image or image.image_name())

    @property
    def drops_uid(self) -> bool:
        return self.drop_uid and os.geteuid() == 0 and self.resolve() in CONTAINED


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    return args


def ready_work_mounts(workdir: Path, mounts: tuple[tuple[str, str], ...]) -> None:
    """Make each mounted folder of the work folder a real folder, from the host side, before the sandbox starts:
    an agent may have removed one or put a symlink (to anywhere on the host) in its place, which bwrap would follow."""
    for rel, _dest in mounts:
        at = workdir
        for part in () if rel == "." else Path(rel).parts:
            at = at / part
            if at.is_symlink() or (at.exists() and not at.is_dir()):
                at.unlink()
            elif at.is_dir():
                continue
            at.mkdir()


def inside_home(work_mounts: tuple[tuple[str, str], ...]) -> str:
    """The session's HOME: /home/kbench, or /root where the task's work folder is seen at /home itself (Docker's HOME
    for its default user, root)."""
    return "/root" if any(dest == "/home" for _rel, dest in work_mounts) else INSIDE_HOME


def check_work_mounts(workdir: Path, mounts: tuple[tuple[str, str], ...]) -> None:
    """A work folder seen at a path that holds it (or that it holds) would hide it: refused, saying what to do."""
    for _rel, dest in mounts:
        inside = Path(dest)
        if inside == workdir or inside in workdir.parents or workdir in inside.parents:
            raise ValueError(f"the work folder cannot also be seen at {dest}: it would hide {workdir} (give the run "
                             f"a work root outside {dest}: --work or KBENCH_WORK)")


def _mount_args(workdir: Path, mounts: tuple[tuple[str, str], ...], made: set[str]) -> list[str]:
    check_work_mounts(workdir, mounts)
    args = []
    for rel, dest in mounts:
        args += _parents(dest, made) + ["--bind", str(workdir if rel == "." else workdir / rel), dest]
    return args


def _parents(dest: str, made: set[str]) -> list[str]:
    """Traversable folders above a bind target: bwrap makes them 0700 for root, which the dropped uid cannot enter."""
    args = []
    for parent in reversed(Path(dest).parents):
        key = str(parent)
        if key in made or key.startswith(("/usr", "/etc", "/proc", "/dev")):
            continue
        made.add(key)
        args += ["--perms", "0755", "--dir", key]
    return args


def bwrap_argv(
    cmd: list[str],
    workdir: Path,
    home: Path,
    tmp: Path,
    cfg: IsolationConfig,
    ro_binds: list[Path | tuple[Path, str]] = (),
    env: dict[str, str] | None = None,
    rw_binds: list[tuple[Path, str]] = (),
    network: bool = True,
    outer: list[str] = (),
) -> list[str]:
    """bwrap command line: system read-only, one writable work folder, private /tmp (or the work folder, where the
    task's is seen at /tmp: its bind comes later and covers the session's), HOME and /proc. Without
    network the process gets its own network namespace with only its own loopback: it reaches nothing of the host
    (the model server, the Dagster UI, another session's listener). `outer` is a command prefix that runs in the
    sandbox before the uid drop (it ends by running the rest): the session's processes cannot trace, read, signal
    or write to it, since it stays root while they are not."""
    argv = [bwrap_path() or "bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--hostname", "kbench"]
    if not network:
        argv.append("--unshare-net")
    argv += _system_binds()
    argv += ["--proc", "/proc", "--dev", "/dev", "--bind", str(tmp), "/tmp"]
    for dev in sorted(glob.glob("/dev/nvidia*")):  # GPU device nodes, so nvidia-smi works inside
        argv += ["--dev-bind", dev, dev]
    made: set[str] = {"/", "/tmp"}
    home_inside = inside_home(cfg.work_mounts)
    argv += _parents(home_inside, made) + ["--bind", str(home), home_inside]
    for b in list(cfg.extra_ro_binds) + list(ro_binds):
        src, dest = (str(b[0]), b[1]) if isinstance(b, tuple) else (str(b), str(b))
        argv += _parents(dest, made) + ["--ro-bind", src, dest]
    for src, dest in rw_binds:
        argv += _parents(dest, made) + ["--bind", str(src), dest]
    argv += _parents(str(workdir), made)
    argv += ["--bind", str(workdir), str(workdir)] + _mount_args(Path(workdir), cfg.work_mounts, made)
    argv += ["--chdir", str(workdir), "--clearenv"]
    for k, v in (env or {}).items():
        argv += ["--setenv", k, v]
    if cfg.drops_uid:
        uid = str(cfg.run_as_uid)
        # Still root in the sandbox's own IPC namespace: the kernel is told to remove a SysV segment once nothing
        # has it attached, so each one is in some process's mappings, where the memory watchdog counts it.
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", *outer,
                 "/bin/sh", "-c", 'echo 1 > /proc/sys/kernel/shm_rmid_forced; exec "$@"', "kbench-ipc",
                 "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--no-new-privs"]
    elif os.geteuid() == 0:
        # Root without capabilities: bwrap run by root keeps them all unless told. And uid 0 still owns /proc/sys,
        # whose host-wide knobs (vm.drop_caches, kernel.core_pattern) need no capability to write: read-only.
        argv += ["--ro-bind", "/proc/sys", "/proc/sys", "--cap-drop", "ALL", "--", *outer]
    else:
        argv += ["--", *outer]
    argv += list(cmd)
    return seccomp.with_filter(argv) if cfg.seccomp else argv
