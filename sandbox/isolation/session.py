"""Run one command (an agent session or a hidden test) in a work folder, under every limit."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from sandbox.containers.process import ContainerLost, ContainerProcess, image_path
from sandbox.isolation import trees, uids
from sandbox.isolation.bwrap import (
    CONTAINED,
    SYSTEM_PATH,
    IsolationConfig,
    bwrap_argv,
    inside_home,
    ready_work_mounts,
)
from sandbox.isolation.limits import MB, Limits
from sandbox.isolation.procs import kill_all, processes_in_folder, session_processes, wait_gone
from sandbox.isolation.teardown import TeardownReport
from sandbox.isolation.watchdog import Kill, Watchdog

TAIL_BYTES = 8192
MAX_LISTED_WRITES = 1000  # outside writes named per place; past that a line says how many more


@dataclass
class SessionResult:
    returncode: int | None
    timed_out: bool
    duration_s: float
    isolation: str
    run_as: str
    output_bytes: int = 0  # everything the command printed
    output_truncated: bool = False  # more than max_output_bytes: the file holds only the head
    tail: str = ""  # the last bytes of the output, kept even when the file was cut
    kills: list[Kill] = field(default_factory=list)
    session_killed: str | None = None  # why the whole session was killed: procs | disk | timeout
    outside_writes: list[str] = field(default_factory=list)

    @property
    def kill_count(self) -> int:
        """Kills for the record: each process a limit or the session's end killed, and each whole-session kill
        once (it takes every process in the namespace with it, unseen). A timeout is not counted here: it is the
        session's own outcome (agent_timeout, a test timeout)."""
        return sum(k.count for k in self.kills if not (k.reason == "timeout" and not k.pid))


def chown_tree(path: Path, uid: int) -> None:
    trees.chown_tree(path, uid)  # iterative, never through a link: the tree is the agent's


def _preexec(limits: Limits):
    fsize, nproc = limits.fsize_bytes, limits.nproc_rlimit

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


class _OutputPump(threading.Thread):
    """Copies the command's output to a file up to a cap, then drains and counts the rest."""

    def __init__(self, stream, out_path: Path | None, cap: int):
        super().__init__(daemon=True)
        self.stream, self.out_path, self.cap = stream, out_path, cap
        self.total, self.tail = 0, bytearray()

    def run(self) -> None:
        fh = open(self.out_path, "wb") if self.out_path else None
        try:
            while chunk := self.stream.read1(65536):
                if fh and self.total < self.cap:
                    fh.write(chunk[: self.cap - self.total])
                self.total += len(chunk)
                self.tail = (self.tail + chunk)[-TAIL_BYTES:]
        finally:
            if fh:
                fh.close()


def _files_under(root: Path, label: str) -> list[str]:
    return trees.listing(root, label, MAX_LISTED_WRITES)


def _record_teardown(dog: Watchdog, teardown: TeardownReport) -> None:
    named, total, whole = teardown.read()
    if whole or dog.session_killed:  # a whole-session kill took the reporter with it, and was recorded itself
        detail = "still running when the session's command ended; ended with its pid namespace (pid inside it)"
        for pid, name in named:
            dog.record("teardown", pid, f"{name}: {detail}")
        if total > len(named):
            dog.record("teardown", 0, f"{detail}: {total - len(named)} more processes", count=total - len(named))
    else:
        dog.record("teardown", 0, "the session's own processes killed the script that reports what its end kills: "
                                  "whatever was still running then was ended unseen", count=0)


def _popen(argv: list[str], workdir: Path, env: dict, limits: Limits, stdin_data: bytes | None,
           teardown: TeardownReport | None) -> subprocess.Popen:
    try:
        proc = subprocess.Popen(
            argv, cwd=workdir, env=env, start_new_session=True, preexec_fn=_preexec(limits),
            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(teardown.fd,) if teardown else (),
        )
    except BaseException:
        if teardown:
            teardown.close()
        raise
    if teardown:
        teardown.started()
    return proc


def _container_end(proc: ContainerProcess, dog: Watchdog) -> str | None:
    """Record what only the engine knows (its memory backstop fired), remove the container; why it was lost, if
    something outside the session killed it."""
    try:
        if proc.oom_killed() and not any(k.reason == "rss" for k in dog.kills):
            dog.record("rss", 0, "the container's memory limit (the backstop above the watchdog's) was reached")
        return proc.outside_kill()
    finally:
        proc.remove()


def run_session(
    cmd: list[str],
    workdir: Path,
    *,
    limits: Limits,
    cfg: IsolationConfig | None = None,
    env: dict[str, str] | None = None,
    output_path: Path | None = None,
    ro_binds: list[Path | tuple[Path, str]] = (),  # read-only, at the same path or (source, path inside)
    rw_binds: list[tuple[Path, str]] = (),  # writable (source, path inside): e.g. pi's own config folder
    log_path: Path | None = None,
    label: str = "session",
    stdin_data: bytes | None = None,
    network: bool = True,
    tracer: list[str] = (),
) -> SessionResult:
    """Run `cmd` with `workdir` as its only writable folder; always returns, never leaves a process behind.
    network=False: its own network namespace under bwrap (no effect without isolation). Dropping to an
    unprivileged uid, the session gets one of its own for its whole life, cleanup included (uids.py).
    tracer: a command prefix run on the host around the launcher (the shell oracle's strace of execve): it stays
    the harness's, outside the sandbox, where the session's processes can neither reach it nor write what it
    writes. A container's processes are not the launcher's children, so a traced session cannot be one."""
    cfg = cfg or IsolationConfig()
    with uids.pool().lease() if cfg.drops_uid else contextlib.nullcontext() as uid:
        if uid is not None:
            cfg = replace(cfg, run_as_uid=uid)
        workdir = Path(workdir).resolve()
        if cfg.memory_mb:
            limits = limits.with_(rss_limit_bytes=cfg.memory_mb * MB)
        if cfg.storage_mb:
            limits = limits.with_(disk_bytes=cfg.storage_mb * MB)
        isolation = cfg.resolve()
        contained = isolation in CONTAINED
        if tracer and isolation == "docker":
            raise RuntimeError("a traced session (the shell trials' witness of what ran) needs bwrap or no "
                               "isolation: a container's processes cannot be traced from the host")
        if cfg.work_mounts:
            if not contained:
                raise RuntimeError("this task sees its work folder at " + ", ".join(d for _r, d in cfg.work_mounts)
                                   + ", which only a sandbox can show (apt-get install bubblewrap)")
            ready_work_mounts(workdir, cfg.work_mounts)
        scratch = Path(tempfile.mkdtemp(prefix=f".{workdir.name}.scratch-", dir=workdir.parent))
        home, tmp = scratch / "home", scratch / "tmp"
        home.mkdir()
        tmp.mkdir()
        # a task's own image keeps its ENV PATH (a venv, a toolchain under /opt), as Docker would run it
        system_path = (image_path(cfg.image) if isolation == "docker" and cfg.image else None) or SYSTEM_PATH
        full_env = {"PATH": ":".join([*cfg.path_prefix, system_path]), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                    "TERM": "dumb"}
        if contained:
            full_env.update(HOME=inside_home(cfg.work_mounts), TMPDIR="/tmp")
        else:
            full_env.update(HOME=str(home), TMPDIR=str(tmp))
        full_env.update(dict(cfg.env))  # the task's own, under whatever the caller sets
        full_env.update(env or {})
        run_as = "self"
        if cfg.drops_uid:
            chown_tree(workdir, cfg.run_as_uid)
            chown_tree(scratch, cfg.run_as_uid)
            run_as = f"uid {cfg.run_as_uid}"
        if contained:
            for src, _dest in rw_binds:
                if cfg.drops_uid:
                    chown_tree(Path(src), cfg.run_as_uid)
            # what the writable binds hold now (after the chown): whatever is new or changed at the end was written
            binds_before = [(Path(src), dest, trees.snapshot(Path(src))) for src, dest in rw_binds]
        if isolation == "bwrap":
            # the processes the namespace's end kills, named before it does, by a reporter that runs before the
            # uid drop: the session's processes can neither read its environment (the session's token) nor forge it
            teardown = TeardownReport()
            argv = bwrap_argv(cmd, workdir, home, tmp, cfg, ro_binds=list(ro_binds), env=full_env,
                              rw_binds=list(rw_binds), network=network, outer=teardown.wrap([]))
            popen_env = {"PATH": SYSTEM_PATH}
        elif isolation == "none":
            argv, popen_env, binds_before, teardown = list(cmd), full_env, [], None
        else:
            teardown = None

        start = time.monotonic()
        if isolation == "docker":
            uid = cfg.run_as_uid if cfg.drops_uid else os.getuid()
            try:
                proc = ContainerProcess(cmd, workdir, home, tmp, uid=uid, limits=limits, env=full_env,
                                        ro_binds=[*cfg.extra_ro_binds, *ro_binds], rw_binds=list(rw_binds),
                                        work_mounts=cfg.work_mounts, network=network, label=label,
                                        image_name=cfg.image, cpus=cfg.cpus)
            except BaseException:  # no engine, no image: the session never began, and leaves nothing
                trees.remove_tree(scratch, ignore_errors=True)
                raise
            finder = proc.processes

            def hard_kill() -> None:
                proc.kill()  # the init's end takes the container's pid namespace, and every process in it
                wait_gone(finder)
        else:
            proc = _popen([*tracer, *argv], workdir, popen_env, limits, stdin_data, teardown)
            finder = lambda: session_processes(proc.pid, sid=proc.pid)  # noqa: E731

            def hard_kill() -> None:
                # Killing the group takes bwrap's namespace init with it, and the kernel then ends every
                # process in the namespace at once: a fork bomb cannot outrun that.
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                wait_gone(finder)
        pump = _OutputPump(proc.stdout, output_path, limits.max_output_bytes)
        pump.start()

        writable = (workdir, scratch, *(Path(src) for src, _ in (rw_binds if contained else ())))
        dog = Watchdog(finder, hard_kill, limits, label, log_path, disk_roots=writable,
                       owner=cfg.run_as_uid if cfg.drops_uid else os.geteuid()).start()
        if isolation == "docker":
            proc.feed(stdin_data)
        elif stdin_data is not None:
            try:
                proc.stdin.write(stdin_data)
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
        timed_out = False
        try:
            proc.wait(timeout=limits.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            dog.kill_session("timeout", f"ran past {limits.timeout_s:g}s")
        finally:
            dog.stop()
            # Whatever the session left running: first its process tree and group, then anything
            # whose current folder is in the work folder (a setsid'd daemon escapes the group).
            dog.record_many("cleanup", kill_all(finder), "left running after the session")
            if isolation == "bwrap":
                # every process of a bwrap session is in its pid namespace, which ends with it; the kernel may not
                # have signalled them all yet, and the sweep must not count (again) what the namespace's end takes
                wait_gone(lambda: processes_in_folder(workdir), timeout=2.0)
            dog.record_many("sweep", kill_all(lambda: processes_in_folder(workdir)),
                            "current folder inside the work folder")
            if isolation == "bwrap" and cfg.drops_uid:
                # the namespace's end also takes what left the work folder (a daemon in /tmp): the uid goes back
                # to the pool once the kernel has signalled those too, so none is seen running as a free uid
                wait_gone(lambda: uids.processes_of(cfg.run_as_uid), timeout=2.0)
            proc.wait()
            pump.join(timeout=5)
            if teardown:
                _record_teardown(dog, teardown)
            lost = _container_end(proc, dog) if isolation == "docker" else None
        duration = time.monotonic() - start
        outside = _files_under(home, "~") + _files_under(tmp, "/tmp")
        for src, dest, before in binds_before:  # e.g. pi's config folder: a write there is a write outside too
            outside += [f"{dest}/{rel}" for rel in trees.changed_since(src, before, MAX_LISTED_WRITES)]
        trees.remove_tree(scratch, ignore_errors=True)
        if lost:
            raise ContainerLost(lost)
        return SessionResult(
            returncode=proc.returncode, timed_out=timed_out, duration_s=duration, isolation=isolation, run_as=run_as,
            output_bytes=pump.total, output_truncated=pump.total > limits.max_output_bytes,
            tail=pump.tail.decode("utf-8", "replace"), kills=dog.kills, session_killed=dog.session_killed,
            outside_writes=outside,
        )
