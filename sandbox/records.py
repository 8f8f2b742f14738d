"""The run records on disk: runs/RUNID/COND/TASK/sK/ (events.jsonl, tests.txt, result.json, workdir/) and the manifest."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

from sandbox.agents.record import json_safe
from sandbox.isolation import sandbox_python

MAX_KEPT_FILE = 10 * 1024 * 1024
SKIPPED_NAMES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".cache", "node_modules", ".npm"}
CLAIM = re.compile(r"\b(works?|working|pass(es|ed|ing)?|correct(ly)?|succe(ss|eded|ssful|ssfully)|verified)\b", re.I)


def attempt_dir(runs_root: Path, run_id: str, cond: str, task: str, seed: int) -> Path:
    return Path(runs_root) / run_id / cond / task / f"s{seed}"


def is_false_claim(final_message: str, outcome: str) -> bool:
    """The agent's last message says the result works, passes or is correct, but the hidden test failed."""
    return outcome in ("wrong", "crash", "timeout", "nofile") and bool(CLAIM.search(final_message or ""))


def copy_final_files(workdir: Path, dest: Path) -> list[str]:
    """Copy what the agent left: no caches, no file over 10 MB, links kept as links. Returns what was left out."""
    left_out = []
    for dirpath, dirnames, filenames in os.walk(workdir):
        rel_dir = Path(dirpath).relative_to(workdir)
        keep = []
        for d in dirnames:
            if d in SKIPPED_NAMES:
                left_out.append(str(rel_dir / d) + "/")
            elif os.path.islink(os.path.join(dirpath, d)):
                filenames.append(d)  # a link to a folder is copied as a link, never followed
            else:
                keep.append(d)
        dirnames[:] = keep
        (dest / rel_dir).mkdir(parents=True, exist_ok=True)
        for name in filenames:
            src = Path(dirpath) / name
            target = dest / rel_dir / name
            if src.is_symlink():
                os.symlink(os.readlink(src), target)
            elif not src.is_file():
                left_out.append(str(rel_dir / name))  # fifos, sockets, devices
            elif name.endswith(".pyc") or src.stat().st_size > MAX_KEPT_FILE:
                left_out.append(str(rel_dir / name))
            else:
                shutil.copy2(src, target)
    return left_out


def write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(json_safe(data), indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(tmp, path)


def _version(cmd: list[str]) -> str | None:
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (cp.stdout or cp.stderr).strip().splitlines()[0] if cp.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return None


def gpus() -> list[str]:
    if not shutil.which("nvidia-smi"):
        return []
    out = _version(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"])
    return [out] if out else []


def environment_versions(pi: str | None) -> dict:
    """Versions for the manifest; deliberately no host name, user name or key."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        kbench = version("kbench-dagster")
    except PackageNotFoundError:
        kbench = "unknown"
    return {
        "kbench": kbench,
        "pi": pi,
        "node": _version(["node", "--version"]),
        "python_harness": platform.python_version(),
        "python_sandbox": (_version([sandbox_python(), "--version"]) or "").removeprefix("Python ") or None,
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "os_release": _os_release(),
    }


def _os_release() -> str | None:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return None


_SEED_DIR = re.compile(r"s\d+")


def finished_results(run_dir: Path) -> list[Path]:
    """The result.json of every finished attempt (RUN/CONDITION/TASK/sN). A `.partial` folder that a kill left
    behind (its result.json written, the rename not yet done) is not one: the rerun redoes that attempt."""
    return sorted(p for p in Path(run_dir).glob("*/*/s*/result.json") if _SEED_DIR.fullmatch(p.parent.name))
