#!/usr/bin/env bash
# The one prepared device command (see gpu/README.md): on the GPU machine, in the repo root, with .whl carried.
#   run(command="bash bench/gpu/device.sh", carry=[".whl"], timeout_s=600)
# Installs the carried wheels beside the image's torch and triton, prints the device, runs the GPU bench (every
# reference, two known-good kernels vs do_bench) and then the GPU-marked tests. Everything lands in $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/kbench-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { echo "wheel install failed"; exit 3; }
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; python3 -c \
  "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"; \
  command -v bwrap || echo "no bwrap on the device"; } 2>&1 | tee "$OUT/device.txt"
timeout 430 python3 bench/gpu/run.py --out "$OUT" --budget-s 360 2>&1 | tee "$OUT/bench_gpu.log"
echo "bench exit: ${PIPESTATUS[0]}"
timeout 120 python3 -m pytest -q -rs -s -p no:cacheprovider -o addopts="" -m gpu tests/test_gpu_grader.py 2>&1 \
  | tail -40 | tee "$OUT/pytest_gpu.log"
