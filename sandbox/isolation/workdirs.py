"""Fresh work folders, always outside the repository, and private copies of hidden files."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from sandbox.isolation.trees import remove_tree

REPO_ROOT = Path(__file__).resolve().parents[2]


def default_work_root() -> Path:
    return Path(os.environ.get("KBENCH_WORK", Path.home() / "kbench-work"))


def check_outside_repo(path: Path) -> Path:
    path = Path(path).resolve()
    if path == REPO_ROOT or REPO_ROOT in path.parents:
        raise ValueError(f"work folder {path} is inside the repository {REPO_ROOT}; "
                         "the agent would see the hidden tests")
    return path


def fresh_dir(path: Path) -> Path:
    """An empty folder at `path` (an old one is removed first)."""
    path = check_outside_repo(path)
    remove_tree(path)  # an earlier try's folder: whatever tree the agent left there
    path.mkdir(parents=True)
    return path


def copy_tree_into(src: Path, dest: Path) -> None:
    """Copy the contents of src into dest, keeping modes, skipping caches."""
    if src.is_dir():
        shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def private_copy(files: dict[str, Path], near: Path) -> Path:
    """A new folder beside the work folder (never inside it) holding copies of hidden files, world-readable."""
    folder = Path(tempfile.mkdtemp(prefix=f".{Path(near).name}.private-", dir=Path(near).resolve().parent))
    os.chmod(folder, 0o755)
    for name, src in files.items():
        dest = folder / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dest)
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    return folder
