"""Grade a work folder with the task's hidden test: pass, wrong, crash, timeout, nofile, or skipped."""

from __future__ import annotations

import base64
import functools
import json
import os
import secrets
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sandbox.isolation.bwrap import SYSTEM_PATH, IsolationConfig, bwrap_path, inside_home, sandbox_python
from sandbox.isolation.limits import TEST_LIMITS, Limits
from sandbox.isolation.session import SessionResult, run_session
from sandbox.isolation.workdirs import private_copy
from sandbox.judge import commands
from task_defs.loader import HARNESS, task_files
from task_defs.models import Task
from task_defs.vocabulary import Outcome

# The judge's start: the harness's read-only folder is on sys.path just long enough to import kbtest.
JUDGE_CODE = "import sys; sys.path.append({0!r}); import kbtest; sys.path.remove({0!r}); kbtest._judge()"


@dataclass
class Grade:
    outcome: Outcome
    detail: str
    duration_s: float
    session: SessionResult | None = None


def missing_requirements(task: Task) -> list[str]:
    """What the task needs that this machine lacks, each named: its attempts are skipped, never scored."""
    missing = [cmd for cmd in task.requires if shutil.which(cmd, path=SYSTEM_PATH) is None]
    if task.unavailable:
        missing.append(task.unavailable)
    if task.image:
        why = image_missing(task.image)
        if why:
            missing.append(why)
    elif task.mounts and not bwrap_path():
        missing.append(f"bwrap (the task sees its work folder at {', '.join(task.mounts)})")
    return missing


@functools.lru_cache(maxsize=64)
def image_missing(name: str) -> str | None:
    """Why a task's image cannot be had here (no engine, or the engine lacks it), once per process."""
    from sandbox.containers import engine, task_images

    failed = task_images.failure(name)
    if failed:
        said = task_images.last_line(failed["tail"])[:200]
        return f"its image {name} (the build failed at {failed['step'][:160]}: {said})"
    try:
        engine.require_image(name)
    except engine.EngineUnavailable as e:
        if name.startswith(task_images.REPOSITORY + "/") and "has no image" in str(e):
            return f"its image {name} (not built: `kbench import-tasks --build DIR` builds it from its Dockerfile)"
        return f"its image {name}: {e}"
    return None


def task_isolation(task: Task, cfg: IsolationConfig | None) -> IsolationConfig:
    """The sandbox every session of this task gets (setup, agent, hidden test): the run's, plus the task's mounts."""
    cfg = cfg or IsolationConfig()
    if task.env:
        cfg = replace(cfg, env=tuple(sorted(task.env.items())))
    cfg = replace(cfg, cpus=task.cpus, memory_mb=task.memory_mb, storage_mb=task.storage_mb)
    if task.image:
        cfg = replace(cfg, mode="docker", image=task.image)
    if not task.mounts:
        return cfg
    return replace(cfg, work_mounts=tuple((rel, inside) for inside, rel in sorted(task.mounts.items())))


def _write(path: Path | None, text: str) -> None:
    if path is not None:
        path.write_text(text, encoding="utf-8")


def test_bundle(task: Task) -> tuple[str, dict[str, bytes]]:
    """The task's hidden test by name, and every file of the test's folder."""
    return Path(task.test).name, {f.relative_to(task.test_dir).as_posix(): f.read_bytes()
                                  for f in task_files(task.test_dir)}


def judge_input(test: str, files: dict[str, bytes], nonce: str) -> bytes:
    """What the judge reads on stdin: the nonce line, then the test's name and files as one JSON line."""
    bundle = {"test": test, "files": {k: base64.b64encode(v).decode("ascii") for k, v in files.items()}}
    return (nonce + "\n" + json.dumps(bundle) + "\n").encode("ascii")


def _parse(result: SessionResult, nonce: str) -> tuple[Outcome, str]:
    if result.timed_out:
        return "timeout", f"the hidden test ran past its time limit ({result.duration_s:.0f}s)"
    if result.session_killed:
        return "crash", f"the test session was killed by the {result.session_killed} watchdog"
    marker = f"KBTEST-RESULT {nonce} "
    lines = [ln for ln in result.tail.splitlines() if ln.startswith(marker)]
    expected_rc = {"pass": 0, "wrong": 1, "crash": 2, "timeout": 3}
    if lines:
        said = lines[-1][len(marker):].strip()
        if said in expected_rc and expected_rc[said] == result.returncode:
            return said, "a safety stop inside the hidden test fired" if said == "timeout" else ""
    return "crash", f"the test ended without its result line (exit code {result.returncode})"


def _judge_system_path(workdir: Path, cfg: IsolationConfig | None) -> str | None:
    """A task image's own PATH for the judge's commands, less every folder its session can write (the work folder
    and where it is also seen, HOME, /tmp); None: the system's (commands.JUDGE_PATH)."""
    if cfg is None or not cfg.image or cfg.resolve() != "docker":
        return None
    from sandbox.containers.process import image_path

    writable = [str(Path(workdir).resolve()), inside_home(cfg.work_mounts), "/tmp",
                *(inside for _rel, inside in cfg.work_mounts)]
    return image_path(cfg.image, writable) or None


def run_hidden_test(test: str, files: dict[str, bytes], workdir: Path, *, limits: Limits,
                    cfg: IsolationConfig | None, output_path: Path | None, log_path: Path | None,
                    label: str, nonce: str | None = None,
                    requirements: tuple[str, ...] = ()) -> tuple[Outcome, str, SessionResult]:
    """Run a hidden test (a kbtest file among `files`) against `workdir`: its outcome, the detail, the session.
    `nonce`: the caller's own, when it reads more of the judge's nonce'd lines than the outcome (capability's
    per-case scores, sandbox/judge/kbtest_lines.py); a fresh one otherwise. `requirements`: the pinned packages
    the test's commands get instead of the judge's own pytest (a Harbor verifier's, sandbox/judge/verifier_env.py)."""
    # A fresh copy holding nothing but kbtest.py, owned by the grader and bound read-only: nothing in it can change.
    harness = private_copy({"kbtest.py": HARNESS}, near=workdir)
    # what a command the test starts runs with: the system's PATH, isolated Pythons, the judge's own pytest (a
    # folder of the grader's, read-only here and never in an agent's session)
    command_env, tools = commands.session_env(requirements, _judge_system_path(workdir, cfg))
    try:
        nonce = nonce or secrets.token_hex(16)
        result = run_session(
            [sandbox_python(), "-I", "-S", "-B", "-c", JUDGE_CODE.format(str(harness))], workdir, limits=limits,
            cfg=cfg, env=command_env, output_path=output_path, ro_binds=[harness, tools], log_path=log_path,
            label=label, stdin_data=judge_input(test, files, nonce),
            network=False,  # agent code runs here beside the judge: nothing may leave the sandbox
        )
    finally:
        shutil.rmtree(harness, ignore_errors=True)
    outcome, detail = _parse(result, nonce)
    # the judge's sandboxed process from start to end: what lies around it (the harness copy, the uid lease, the
    # scratch folders) is the judge's overhead, which the scheduler records apart
    return outcome, detail, result


def grade(
    task: Task,
    workdir: Path,
    *,
    output_path: Path | None = None,
    cfg: IsolationConfig | None = None,
    limits: Limits | None = None,
    log_path: Path | None = None,
    timeout_s: float | None = None,
) -> Grade:
    """Run the hidden test against `workdir`. The test and its data are handed to the judge on stdin and never
    exist as files in the sandbox (agent code runs as the same user as the judge and would read them); the only
    file the judge runs from is the harness, in a read-only folder (see kbtest._judge)."""
    start = time.monotonic()
    missing = missing_requirements(task)
    if missing:
        msg = f"skipped: requires {', '.join(missing)}, not found on this machine"
        _write(output_path, msg + "\n")
        return Grade("skipped", msg, 0.0)
    target = task.graded_file
    if target and not os.path.lexists(Path(workdir) / target):
        msg = f"nofile: {target} does not exist in the work folder"
        _write(output_path, msg + "\n")
        return Grade("nofile", msg, time.monotonic() - start)
    limits = (limits or TEST_LIMITS).with_(timeout_s=float(timeout_s or task.test_timeout))
    outcome, detail, result = run_hidden_test(*test_bundle(task), workdir, limits=limits,
                                              cfg=task_isolation(task, cfg), output_path=output_path,
                                              log_path=log_path, label=f"test:{task.id}",
                                              requirements=tuple(task.verifier_requires))
    return Grade(outcome, detail, result.duration_s, result)
