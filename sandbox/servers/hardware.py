"""What an endpoint runs on: declared by its owner, else guessed only where the guess can be right.

A board that ranks a laptop's CPU against a data centre's GPU answers nobody's question, so every result row carries
its endpoint's hardware class and boards rank within a class. The harness cannot see a remote server's machine: for
one it says "unknown" until someone declares it (`kbench endpoints add ... --hardware-class`). A server on this
machine's loopback runs on this machine's hardware, so that one is guessed from it and marked as a guess.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
import urllib.parse
from pathlib import Path
from typing import Literal, get_args

from sandbox.servers.describe import UNKNOWN, describe_endpoint, with_declared

HardwareClass = Literal["cpu", "entry-gpu", "mid-gpu", "high-gpu", "cloud"]
HARDWARE_CLASSES: tuple[str, ...] = get_args(HardwareClass)
# Where a small model is the point, answering in time matters as much as answering right (klbench's rule): these
# classes' boards lead with usability, the others with pass@1.
USABILITY_FIRST = ("cpu", "entry-gpu")
DECLARABLE = ("hardware", "hardware_class", "site")
# GPU memory (GiB) below which a local GPU counts as entry, then mid; above, high.
_ENTRY_BELOW_GIB, _MID_BELOW_GIB = 12, 40


def headline_of(hardware_class: str | None) -> str:
    """The figure a board of this class ranks by: usability or pass@1."""
    return "usability" if hardware_class in USABILITY_FIRST else "pass@1"


def check_hardware_class(value: str | None) -> str | None:
    if value is not None and value not in HARDWARE_CLASSES:
        raise ValueError(f"hardware class {value!r}: choose one of {', '.join(HARDWARE_CLASSES)}")
    return value


def is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _cpu() -> str:
    name = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem_gib = None
    return f"{name or 'CPU'}, {cores} cores" + (f", {mem_gib:.0f} GiB" if mem_gib else "")


def _local_gpus() -> list[tuple[str, float]]:
    """(name, GiB) of each NVIDIA GPU this machine has; none without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return []
    try:
        cp = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
                            capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    out = []
    for line in cp.stdout.splitlines() if cp.returncode == 0 else []:
        name, _, mib = line.rpartition(",")
        try:
            out.append((name.strip(), float(mib) / 1024))
        except ValueError:
            continue
    return out


def local_hardware() -> dict:
    """This machine's hardware and class, for a server on its loopback (a guess: the server may not use the GPU)."""
    gpus = _local_gpus()
    if not gpus:
        return {"hardware": _cpu(), "hardware_class": "cpu"}
    name, gib = max(gpus, key=lambda g: g[1])
    cls = "entry-gpu" if gib < _ENTRY_BELOW_GIB else "mid-gpu" if gib < _MID_BELOW_GIB else "high-gpu"
    return {"hardware": f"{len(gpus)}x {name} ({gib:.0f} GiB)" if len(gpus) > 1 else f"{name} ({gib:.0f} GiB)",
            "hardware_class": cls}


def endpoint_record(url: str, api_key: str | None, declared: dict) -> dict:
    """The endpoint as a run's manifest keeps it: its name, what the server says of itself, what its owner declared
    (which wins) and, for a loopback server, this machine's hardware as a guess; "unknown" for the rest."""
    described = describe_endpoint(url, api_key)
    guess = local_hardware() if is_loopback(url) else {}
    base = {**described, **{k: UNKNOWN for k in DECLARABLE}, **guess}
    out = with_declared(base, {k: declared.get(k) for k in DECLARABLE})
    out["guessed"] = sorted(k for k in guess if k not in out["declared"])
    out["name"] = declared.get("name") or None
    return out
