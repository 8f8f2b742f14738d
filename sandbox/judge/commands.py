"""The fixed environment of every command the judge starts in a work folder (rule 1 of the judging boundary).

A verification command (a fixture's check, a SWE record's FAIL_TO_PASS, a Harbor task's test.sh) runs in the work
folder the agent left, because that is what it checks. What it runs must still come from the system or the judge:

* PATH is the system's folders (`JUDGE_PATH`, or a task image's own PATH less every folder the session can write),
  after the judge's own bin/ (pytest): never the work folder.
* Python: PYTHONSAFEPATH=1 (no current or script folder first on sys.path), no user site, no bytecode written, and
  the judge's tools folder on PYTHONPATH, whose sitecustomize (verifier_site.py) serves every standard and judge
  module from the trusted folders only; pytest loads no plugin it finds installed (PYTEST_DISABLE_PLUGIN_AUTOLOAD),
  so no distribution a work folder holds takes part.
* The tools folder is the judge's: pytest and what it needs, copied from this interpreter's own installation (pinned
  by its version), in a folder of the grader's outside every work folder, bound read-only into the test's sandbox
  only. The agent's sessions never have it on their path.

The grader hands this environment to the hidden test as one JSON variable (`ENV_VAR`); the hidden test of a command
verification passes it to each command.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata as metadata
import json
import os
import shutil
import tempfile
from pathlib import Path

from sandbox.isolation.bwrap import SYSTEM_PATH
from sandbox.isolation.trees import publish, seal

JUDGE_PATH = SYSTEM_PATH
ENV_VAR = "KBENCH_COMMAND_ENV"
PYTEST = "pytest"
SITE = Path(__file__).with_name("verifier_site.py")
# a tools folder's pytest plugins, one module a line, for PYTEST_PLUGINS (verifier_env.py writes it)
PLUGINS = "pytest-plugins.txt"


def _closure(name: str) -> list[metadata.Distribution]:
    """The installed distribution `name` and every one it requires here (markers as this interpreter sees them)."""
    from packaging.requirements import Requirement

    seen: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        key = todo.pop().lower().replace("_", "-")
        if key in seen:
            continue
        dist = metadata.distribution(key)
        seen[key] = dist
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return [seen[k] for k in sorted(seen)]


def pytest_version() -> str | None:
    """The pytest the judge can give a verification (this interpreter's own), or None."""
    try:
        return metadata.version(PYTEST)
    except metadata.PackageNotFoundError:
        return None


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kbench" / "judge-tools"


def _copy_dist(dist: metadata.Distribution, into: Path) -> None:
    for rel in dist.files or []:
        # scripts land outside site-packages (../../bin); bytecode is made again, never carried
        if ".." in rel.parts or "__pycache__" in rel.parts or rel.suffix == ".pyc":
            continue
        src = Path(dist.locate_file(rel))
        if src.is_file() and not src.is_symlink():
            dest = into / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)


@functools.lru_cache(maxsize=1)
def tools_folder() -> Path:
    """The judge's tools folder, made once per content (the sitecustomize and the pytest versions) and kept."""
    from sandbox.judge.verifier_env import shims  # that module builds on this one: imported when first needed

    dists = _closure(PYTEST) if pytest_version() else []
    bins = shims()
    h = hashlib.sha256(SITE.read_bytes() + json.dumps(bins, sort_keys=True).encode())
    for dist in dists:
        h.update(f"{dist.metadata['Name']}=={dist.version};".encode())
    root = _cache_root() / h.hexdigest()[:16]
    if root.is_dir():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tools-", dir=root.parent))
    try:
        shutil.copyfile(SITE, tmp / "sitecustomize.py")
        if dists:
            (tmp / "bin").mkdir()
            for name, text in bins.items():
                (tmp / "bin" / name).write_text(text, encoding="utf-8")
            for dist in dists:
                _copy_dist(dist, tmp)
        seal(tmp)  # the grader's own: readable by the sandbox's uid, writable by none of it
        publish(tmp, root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def command_env(tools: Path, system_path: str | None = None) -> dict[str, str]:
    """What a verification command's environment holds over the sandbox's own (HOME, TMPDIR, the locale).
    `system_path`: the system's folders where they are not JUDGE_PATH (a task image's own PATH, less every folder
    the session can write)."""
    bin_dir = tools / "bin"
    system_path = system_path or JUDGE_PATH
    path = f"{bin_dir}:{system_path}" if bin_dir.is_dir() else system_path
    env = {"PATH": path, "PYTHONSAFEPATH": "1", "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": str(tools), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    plugins = (tools / PLUGINS).read_text(encoding="utf-8").split() if (tools / PLUGINS).is_file() else []
    if plugins:  # named rather than found: a `python3 -m pytest` gets them as the pytest shim's -p does
        env["PYTEST_PLUGINS"] = ",".join(plugins)
    return env


def session_env(requirements: tuple[str, ...] = (), system_path: str | None = None) -> tuple[dict[str, str], Path]:
    """The variable the grader sets in a hidden test's sandbox, and the folder to bind read-only there: the judge's
    own pytest, or the pinned packages a task's verifier asks for (verifier_env.py)."""
    from sandbox.judge.verifier_env import tools_for

    tools = tools_for(requirements) if requirements else tools_folder()
    return {ENV_VAR: json.dumps(command_env(tools, system_path))}, tools
