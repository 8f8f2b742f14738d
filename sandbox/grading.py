"""Grade a work folder with the task's hidden test: pass, wrong, crash, timeout, nofile, or skipped."""

from __future__ import annotations

import os
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from task_defs.loader import HARNESS

PRIVATE_DIR_ENV = "KBTEST_PRIVATE_DIR"  # kbtest.py reads the same name
from task_defs.models import Task
from sandbox.isolation import SYSTEM_PATH, IsolationConfig, sandbox_python
from sandbox.limits import TEST_LIMITS, Limits
from sandbox.runner import SessionResult, run_session
from sandbox.workdirs import private_copy

Outcome = Literal["pass", "wrong", "crash", "timeout", "nofile", "skipped"]
TEST_MOUNT_NAME = "hidden"


@dataclass
class Grade:
    outcome: Outcome
    detail: str
    duration_s: float
    session: SessionResult | None = None


def missing_requirements(task: Task) -> list[str]:
    return [cmd for cmd in task.requires if shutil.which(cmd, path=SYSTEM_PATH) is None]


def _write(path: Path | None, text: str) -> None:
    if path is not None:
        path.write_text(text, encoding="utf-8")


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
    """Run the hidden test against `workdir`; the test is copied in only now, outside the work folder."""
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
    # The harness sits beside the test so `import kbtest` finds it before anything in the work folder.
    hidden = private_copy({TEST_MOUNT_NAME: task.test_dir, f"{TEST_MOUNT_NAME}/kbtest.py": HARNESS}, near=workdir)
    try:
        test_file = hidden / TEST_MOUNT_NAME / Path(task.test).name
        nonce = secrets.token_hex(16)
        limits = (limits or TEST_LIMITS).with_(timeout_s=float(timeout_s or task.test_timeout))
        result = run_session(
            [sandbox_python(), "-B", "-E", "-s", str(test_file)], workdir, limits=limits, cfg=cfg,
            # writable, so the harness can empty it (all but itself) before any agent code runs: agent code runs
            # as the same user as the test and must not find the test's source or data there
            output_path=output_path, rw_binds=[(hidden, str(hidden))], log_path=log_path, label=f"test:{task.id}",
            stdin_data=(nonce + "\n").encode(),
            network=False,  # agent code runs here with the hidden test in reach: nothing may leave the sandbox
            env={PRIVATE_DIR_ENV: str(test_file.parent)},  # the one folder the harness may empty
        )
    finally:
        shutil.rmtree(hidden, ignore_errors=True)
    outcome, detail = _parse(result, nonce)
    return Grade(outcome, detail, time.monotonic() - start, result)
