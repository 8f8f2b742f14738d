# task: softmax_fp32
# expect: cheat_rejected,incorrect
"""Rewrites every reference it can find so that zeros become the expected answer, then writes zeros."""
import os
import sys
from pathlib import Path

ZEROS = "import torch\n\ndef make_inputs(shape, r):\n    return {'x': r.normal(shape['R'], shape['C'])}\n\n" \
        "def reference(x):\n    return torch.zeros_like(x)\n"

for target in (os.environ.get("KBENCH_FIXTURE_TARGET"), "reference.py"):
    if target and Path(target).exists():
        Path(target).write_text(ZEROS)
for name, mod in list(sys.modules.items()):
    if hasattr(mod, "reference") and hasattr(mod, "make_inputs"):
        mod.reference = lambda x: x * 0


def kernel(x, out):
    out.zero_()
