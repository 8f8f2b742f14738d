#!/usr/bin/env bash
# Run HERE (not on the device) before a device call: the device image has python3.12 with torch and triton but no
# pydantic, which the kernel task loader needs, and it cannot reach PyPI. This puts the wheels it lacks in .whl/
# (git-ignored), to be named in the device call's `carry`. Versions: the ones our venv pins. typing-extensions too:
# pydantic-core needs a newer one than an image may hold.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
rm -rf .whl && mkdir .whl
ver() { .venv/bin/python -c "import importlib.metadata as m; print(m.version('$1'))"; }
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
           --platform manylinux2014_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_31_x86_64)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
  -d .whl "pydantic==$(ver pydantic)" "pydantic-core==$(ver pydantic_core)" "annotated-types==$(ver annotated-types)" \
  "typing-inspection==$(ver typing-inspection)" "typing-extensions==$(ver typing-extensions)"
ls -la .whl
