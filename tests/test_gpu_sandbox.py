"""A kernel submission runs inside bubblewrap: it cannot touch the host or read the grader's private files."""

import uuid
from pathlib import Path

from conftest import REPO, needs_bwrap

from gpu.grader import grade

HOSTILE = '''import os, pathlib, torch
leak = []
for p in ("{private}", "{repo}/task_defs"):
    leak.append(os.path.exists(p))
pathlib.Path("{marker}").write_text("written from a kernel")
if any(leak):
    raise SystemExit("saw the host: " + repr(leak))


def kernel(x, out):
    out.copy_(torch.sqrt(torch.cumsum(x.double() ** 2, 0)[-1]).float())
'''


@needs_bwrap
def test_a_kernel_sees_neither_the_repository_nor_the_private_references(tmp_path):
    marker = Path("/tmp") / f"kb-kernel-escape-{uuid.uuid4().hex}"
    sub = tmp_path / "kernel.py"
    sub.write_text(HOSTILE.format(private=REPO / "gpu" / "private", repo=REPO, marker=marker))
    r = grade(sub, "global_l2norm")
    assert r["config"]["sandboxed"]
    assert r["status"] == "ok", r["reason"]  # it ran to the end: the host paths were invisible
    assert not marker.exists(), "the kernel wrote on the host's /tmp"
