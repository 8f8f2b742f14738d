"""A folder of a git repository from a local mirror, never over the network: a clone or a bare git folder under
a mirror folder, named as kbench's fetch names it (OWNER+NAME, or OWNER+NAME/repo), OWNER/NAME or NAME. What a
registry's task or a discovery source names by git_url is read from here (harbor_registry.py, commands/discover.py).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path


def repo_names(git_url: str) -> list[str]:
    """The folder names a mirror of this repository may have: owner+name (kbench's fetch), owner/name, name."""
    tail = re.sub(r"\.git$", "", git_url.rstrip("/")).replace(":", "/").split("/")
    owner, name = (tail[-2], tail[-1]) if len(tail) >= 2 else ("", tail[-1])
    return [f"{owner}+{name}", f"{owner}+{name}/repo", f"{owner}/{name}", name, f"{name}.git"]


def git_dir(folder: Path) -> Path | None:
    if (folder / ".git").exists():
        return folder / ".git"
    if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
        return folder
    return None


def find_mirror(git_url: str, rel: str, mirrors: list[Path]) -> Path | None:
    """The first mirror of the repository that is a git folder or holds `rel`."""
    for root in mirrors:
        for name in repo_names(git_url):
            if (root / name).is_dir() and (git_dir(root / name) or (root / name / rel).is_dir()):
                return root / name
    return None


def commit_of(folder: Path, commit: str | None) -> str | None:
    """The full id `commit` (HEAD where None) names in the mirror, or None (no git there, or no such commit)."""
    git = git_dir(folder)
    if git is None:
        return None
    cp = subprocess.run(["git", "--git-dir", str(git), "rev-parse", "--verify", "--quiet",
                         f"{commit or 'HEAD'}^{{commit}}"], capture_output=True, text=True, timeout=60)
    return cp.stdout.strip() or None


def _from_git(git: Path, commit: str, rel: str, dest: Path) -> str | None:
    """The folder `rel` of `commit` laid at `dest`; why not, if it cannot be."""
    cp = subprocess.run(["git", "--git-dir", str(git), "archive", "--format=tar", commit, "--", rel],
                        capture_output=True, timeout=300)
    if cp.returncode != 0:
        said = cp.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
        return f"{rel} at {commit} is not in the mirror {git} ({said[-1]})"
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp, tarfile.open(fileobj=io.BytesIO(cp.stdout)) as tar:
        tar.extractall(tmp, filter="data")
        shutil.move(str(Path(tmp) / rel), dest)
    return None


def lay_from_mirror(git_url: str, commit: str | None, rel: str, mirrors: list[Path], dest: Path) -> str | None:
    """The folder `rel` of the repository at `commit` (HEAD where None) laid at `dest`; why not, if it cannot be."""
    found = find_mirror(git_url, rel, mirrors)
    if found is None:
        places = ", ".join(str(m) for m in mirrors) or "no --mirror given"
        return (f"no local mirror of {git_url} under {places}: clone it into a mirror folder as "
                f"{repo_names(git_url)[0]} or {repo_names(git_url)[3]}")
    git = git_dir(found)
    if git is not None:
        return _from_git(git, commit or "HEAD", rel, dest)
    shutil.copytree(found / rel, dest, symlinks=True)
    return None
