# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Adds to src/ what the setup/ folder cannot hold: empty package files, a build/ copy, a hidden
# virtualenv folder with a Python file, and compiled .pyc files (binary, not .py).
set -eu
cd src
: > app/__init__.py
: > app/models/__init__.py
: > app/utils/__init__.py
mkdir -p build/lib/app
cp app/main.py build/lib/app/main.py
mkdir -p .venv/lib/python3.11/site-packages
{
    echo '"""Vendored constants table (generated)."""'
    for i in $(seq 1 40); do echo "CONST_$i = $((i * i))"; done
} > .venv/lib/python3.11/site-packages/consts.py
mkdir -p app/__pycache__
printf '\247\015\015\012\000\000\000\000compiled main module\012\012\012' > app/__pycache__/main.cpython-311.pyc
printf '\247\015\015\012\000\000\000\000compiled user module\012' > app/__pycache__/user.cpython-311.pyc
