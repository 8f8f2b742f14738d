"""Where the kernel grader's tests find their submissions (the adversarial fixtures under tests/gpu_fixtures, the
known-good kernels under bench/gpu/kernels), how a fixture's header says what it needs and expects, whether this
machine has a CUDA device, and a way to nest folders deeper than recursion can walk."""

import os
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parent.parent  # bench/gpu/run.py loads this file too, without conftest
FIXTURES = REPO / "tests" / "gpu_fixtures"
KNOWN_GOOD = REPO / "bench" / "gpu" / "kernels"
HAS_CUDA = torch.cuda.is_available()


def fixture_meta(path: Path) -> dict:
    meta = {"needs": "", "cpu-only": ""}
    for line in path.read_text().splitlines():
        if line.startswith("# ") and ":" in line:
            key, _, val = line[2:].partition(":")
            meta[key.strip()] = val.strip()
    meta["expect"] = set(meta["expect"].split(","))
    return meta


def nest(folder: Path, levels: int) -> None:
    """`levels` folders inside one another under `folder`, made through descriptors (os.makedirs recurses)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)
