"""A Harbor test.sh without its network bootstrap, and the judge's pinned tools that stand in for it.

Nearly every public test.sh fetches its test tools when it starts: apt-get installs curl, curl pipes astral.sh's uv
installer to sh, and `uvx --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 pytest ...` runs the tests (or pip
installs the same pins and runs pytest). The sandbox that runs test.sh has no network, so:

* `read_test_script` (verifier_script.py) collects the pins the script asks for (`requirements`) and turns each
  bootstrap line into a no-op (`: # kbench: <line> -- replaced: ...`), line numbers kept. Any other line that still
  fetches is named in `fetches`: such a task stays unavailable.
* `tools_for(requirements)` is a judge tools folder (commands.py) holding exactly those pins, installed from PyPI by
  this machine once per set and kept. PYTEST_DISABLE_PLUGIN_AUTOLOAD stays set; the pytest plugins the pins bring
  (their `pytest11` entry points) are named instead: `-p MODULE` in the pytest shim, and the folder's
  pytest-plugins.txt, which commands.command_env turns into PYTEST_PLUGINS for `python3 -m pytest`.

The shims in the folder's bin/, POSIX sh, ahead of the system's folders on PATH:

* `pytest`, `py.test`: `python3 -m pytest`, with the folder's plugins.
* `uvx ARGS` is `uv tool run ARGS`. `uv tool run` and `uv run` skip uv's own options (`--with X`, `-w X`,
  `--with=X`, `-p X`, `--from X`, `--isolated`, `-q`, ...) and run the command: `pytest` (also `pytest==V`,
  `pytest@V`) is the pytest shim, `python`/`python3`/`X.py` the system's python3, `-m MOD` python3 -m MOD, and
  anything else runs as given. The Python version asked (`-p 3.13`) is not served: the system's python3 runs.
* `uv pip ...` and `uv venv ...` exit 0, saying on stderr that the judge's environment is already set up.
* `python` is python3.
"""

from __future__ import annotations

import configparser
import hashlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from packaging.requirements import Requirement

from sandbox.isolation.trees import publish, seal
from sandbox.judge import commands
from sandbox.judge.verifier_script import UV_VALUE, VerifierScript, pip_requirement, read_test_script

__all__ = ["VerifierEnvError", "VerifierScript", "read_test_script", "shims", "tools_for"]

PLUGINS = commands.PLUGINS

UV_SHIM = r"""#!/bin/sh
# kbench judge: uv without the network; the tools are the judge's folder (sandbox/judge/verifier_env.py)
bin=$(dirname "$0")
while [ $# -gt 0 ]; do
  case $1 in -q|--quiet|-v|--verbose|--offline|--no-cache|-n|--native-tls) shift ;; *) break ;; esac
done
tool=
case $1 in
  run) shift ;;
  tool) [ "$2" = run ] || { echo "uv (kbench judge): only 'uv tool run' is served here" >&2; exit 2; }
    shift 2; tool=1 ;;
  pip|venv) echo "uv (kbench judge): nothing to do, the judge's environment is already set up" >&2; exit 0 ;;
  *) echo "uv (kbench judge): 'uv $1' is not served here (no network)" >&2; exit 2 ;;
esac
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -m|--module) shift; exec python3 -m "$@" ;;
    @@VALUE@@) [ $# -ge 2 ] || break; shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "uv (kbench judge): no command to run" >&2; exit 2; }
cmd=$1; shift
if [ -n "$tool" ]; then cmd=${cmd%%[=@<>~!]*}; cmd=${cmd%%\[*}; fi
case $cmd in
  pytest|py.test) exec "$bin/pytest" "$@" ;;
  python|python3|python3.*) exec python3 "$@" ;;
  *.py) exec python3 "$cmd" "$@" ;;
  *) exec "$cmd" "$@" ;;
esac
""".replace("@@VALUE@@", "|".join(sorted(UV_VALUE)))
UVX_SHIM = '#!/bin/sh\nexec "$(dirname "$0")/uv" tool run "$@"\n'
PYTHON_SHIM = '#!/bin/sh\nexec python3 "$@"\n'


class VerifierEnvError(RuntimeError):
    """The judge cannot make the tools a test script asks for."""


def shims(plugins: Sequence[str] = ()) -> dict[str, str]:
    """bin/ of a judge tools folder: name -> POSIX sh text."""
    pytest = "#!/bin/sh\nexec python3 -m pytest" + "".join(f" -p {p}" for p in plugins) + ' "$@"\n'
    return {"pytest": pytest, "py.test": pytest, "uvx": UVX_SHIM, "uv": UV_SHIM, "python": PYTHON_SHIM}


def _plugins(folder: Path) -> list[str]:
    """The modules the installed distributions name as pytest plugins (entry points of group pytest11)."""
    found = set()
    for eps in folder.glob("*.dist-info/entry_points.txt"):
        cfg = configparser.ConfigParser(interpolation=None, delimiters=("=",))
        try:
            cfg.read_string(eps.read_text(encoding="utf-8"))
        except (configparser.Error, UnicodeDecodeError):
            continue
        if cfg.has_section("pytest11"):
            # `module:object` plugins would need the object registered, which -p cannot say
            found |= {v.strip() for v in cfg["pytest11"].values() if re.fullmatch(r"[A-Za-z_][\w.]*", v.strip())}
    return sorted(found)


def _on_python3(data: bytes) -> bytes:
    lines = data.split(b"\n")
    if lines[0].startswith(b"#!/bin/sh") and lines[1:2] and lines[1].startswith(b"'''exec'"):
        lines = lines[2:]  # pip's form for an interpreter path too long for #!: sh execs it, Python skips a string
    elif not (lines[0].startswith(b"#!") and b"python" in lines[0]):
        return data
    return b"\n".join([b"#!/usr/bin/env python3", *lines[1:]])


def _checked(requirements: Iterable[str]) -> list[str]:
    out = set()
    for text in requirements:
        req = pip_requirement(text)
        if req is None:
            raise VerifierEnvError(f"not a package pip can take from PyPI by name: {text!r}")
        out.add(req)
    judge = commands.pytest_version()
    if out and judge and not any(Requirement(r).name.lower() == "pytest" for r in out):
        out.add(f"pytest=={judge}")  # the shims run pytest whatever the pins say; the judge's own when none does
    return sorted(out)


def _install(reqs: list[str], into: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "--target", str(into), "--only-binary=:all:", "--no-compile",
           "--disable-pip-version-check", "--no-input", "-q", "--", *reqs]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    except subprocess.TimeoutExpired:
        raise VerifierEnvError(f"pip could not install {reqs}: no end after 1200 s") from None
    if done.returncode:
        said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        raise VerifierEnvError(f"pip could not install {reqs}: " + "\n".join(said[-6:]))


def tools_for(requirements: Iterable[str]) -> Path:
    """A judge tools folder holding `requirements` (pins from read_test_script), made once per set and kept; with
    none, the judge's default folder (commands.tools_folder)."""
    reqs = _checked(requirements)
    if not reqs:
        return commands.tools_folder()
    h = hashlib.sha256("\n".join(reqs).encode() + commands.SITE.read_bytes())
    for name, text in shims(["PLUGIN"]).items():
        h.update(f"{name}\0{text}\0".encode())
    h.update(f"{sys.version_info[:2]} {platform.machine()}".encode())
    root = commands._cache_root() / f"pinned-{h.hexdigest()[:16]}"
    if root.is_dir():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tools-", dir=root.parent))
    try:
        _install(reqs, tmp)
        plugins = _plugins(tmp)
        bin_dir = tmp / "bin"
        bin_dir.mkdir(exist_ok=True)
        for script in bin_dir.iterdir():
            # pip's console scripts name this interpreter, which the sandbox lacks: the system's python3 runs them
            script.write_bytes(_on_python3(script.read_bytes()))
        for name, text in shims(plugins).items():
            (bin_dir / name).write_text(text, encoding="utf-8")
        (tmp / PLUGINS).write_text("".join(f"{p}\n" for p in plugins), encoding="utf-8")
        shutil.copyfile(commands.SITE, tmp / "sitecustomize.py")
        seal(tmp)
        publish(tmp, root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root
