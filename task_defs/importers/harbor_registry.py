"""Harbor's registry.json: datasets by name and version, each a list of task folders, named by a path inside a git
repository (`git_url`, `git_commit_id`) or by a local path. kbench reads it for the datasets whose folders are at
hand, never over the network: a local path (relative to the registry file), or a local mirror of the repository
(a clone or a bare git directory under a mirror folder). A dataset is laid out as one folder of Harbor task
folders, which `kbench import-tasks` and `--suite` take like any other; a task whose folder is not at hand is
refused, saying which repository, commit and path it needs, and the others go on.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from task_defs.errors import TaskFileError
from task_defs.importers.git_mirror import lay_from_mirror
from task_defs.importers.loader import read_json

SLUG = re.compile(r"[^A-Za-z0-9._-]+")
LAID = ".kbench-dataset"  # marks a folder laid out here, which a later lay-out may empty


@dataclass(frozen=True)
class RegistryTask:
    name: str
    path: str
    git_url: str | None = None
    git_commit_id: str | None = None

    def where(self) -> str:
        return f"{self.git_url}@{self.git_commit_id or 'HEAD'}:{self.path}" if self.git_url else self.path


@dataclass(frozen=True)
class Dataset:
    name: str
    version: str
    description: str
    tasks: tuple[RegistryTask, ...]

    @property
    def qualified(self) -> str:
        return f"{self.name}@{self.version}"


def is_registry(path: Path) -> bool:
    """A .json file whose top level is a list of datasets (objects with a name and tasks); our own JSON fixtures
    are a suite object, a task object or a list of tasks (objects with an id)."""
    path = Path(path)
    if not path.is_file() or path.suffix != ".json":
        return False
    try:
        raw = read_json(path)
    except TaskFileError:
        return False
    return isinstance(raw, list) and bool(raw) and all(
        isinstance(d, dict) and "tasks" in d and "name" in d and "id" not in d for d in raw)


def _text(value, path: Path, field: str, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TaskFileError(path, field, "a non-empty string")
    return value


def read_registry(path: Path) -> list[Dataset]:
    """Every dataset of a registry file; a broken one names the file and the field (datasets[i].tasks[j].path)."""
    path = Path(path)
    raw = read_json(path)
    if not isinstance(raw, list):
        raise TaskFileError(path, None, "a Harbor registry is a list of datasets")
    out = []
    for i, d in enumerate(raw):
        at = f"datasets[{i}]"
        if not isinstance(d, dict) or not isinstance(d.get("tasks"), list):
            raise TaskFileError(path, f"{at}.tasks", "a list of tasks")
        tasks = []
        for j, t in enumerate(d["tasks"]):
            tat = f"{at}.tasks[{j}]"
            if not isinstance(t, dict):
                raise TaskFileError(path, tat, "an object with name and path")
            rel = _text(t.get("path"), path, f"{tat}.path")
            parts = PurePosixPath(rel).parts
            if ".." in parts or (t.get("git_url") and rel.startswith("/")):
                raise TaskFileError(path, f"{tat}.path", "a path without '..' (inside the repository, for a git_url)")
            commit = _text(t.get("git_commit_id"), path, f"{tat}.git_commit_id", required=False)
            if commit and not re.fullmatch(r"[0-9a-fA-F]{4,40}", commit):
                raise TaskFileError(path, f"{tat}.git_commit_id", "a commit id (hex)")
            tasks.append(RegistryTask(name=_text(t.get("name") or PurePosixPath(rel).name, path, f"{tat}.name"),
                                      path=rel, git_url=_text(t.get("git_url"), path, f"{tat}.git_url", False),
                                      git_commit_id=commit))
        out.append(Dataset(name=_text(d.get("name"), path, f"{at}.name"),
                           version=str(d.get("version") or "head"),
                           description=str(d.get("description") or ""), tasks=tuple(tasks)))
    return out


def pick(datasets: list[Dataset], wanted: str | None, path: Path) -> Dataset:
    """The dataset `name@version` (or `name`, where it has one version; nothing, where the file has one)."""
    have = ", ".join(d.qualified for d in datasets) or "none"
    if wanted is None:
        if len(datasets) == 1:
            return datasets[0]
        raise TaskFileError(path, "--dataset", f"the registry holds several datasets; name one of: {have}")
    name, _, version = wanted.partition("@")
    found = [d for d in datasets if d.name == name and (not version or d.version == version)]
    if len(found) == 1:
        return found[0]
    why = "names several versions" if found else "is not in the registry"
    raise TaskFileError(path, "--dataset", f"{wanted} {why}; it holds: {have}")


def _lay(task: RegistryTask, registry: Path, mirrors: list[Path], dest: Path) -> str | None:
    """Lay one task's folder at `dest`; why it is not at hand, if it is not."""
    if not task.git_url:
        src = Path(task.path) if Path(task.path).is_absolute() else registry.parent / task.path
        if not src.is_dir():
            return f"{task.path}: no such folder (a local task path is read relative to the registry file)"
        shutil.copytree(src, dest, symlinks=True)
        return None
    return lay_from_mirror(task.git_url, task.git_commit_id, task.path, mirrors, dest)


def lay_dataset(dataset: Dataset, registry: Path, mirrors: list[Path], into: Path) -> list[TaskFileError]:
    """Every task folder of the dataset under `into` (emptied first, where it is one laid out here before, or empty),
    one folder a task named as the registry names it; the tasks not at hand, each as the error that says what it
    needs."""
    if into.exists() and any(into.iterdir()):
        if not (into / LAID).is_file():
            raise TaskFileError(into, "--into", "holds files kbench did not lay out: give a new or empty folder")
        shutil.rmtree(into)
    into.mkdir(parents=True, exist_ok=True)
    (into / LAID).write_text(f"{dataset.qualified} of {registry}\n", encoding="utf-8")
    refused, seen = [], set()
    for i, task in enumerate(dataset.tasks):
        slug = SLUG.sub("-", task.name).strip("-.") or f"task-{i + 1}"
        if slug in seen:
            refused.append(TaskFileError(registry, f"{dataset.qualified}.tasks[{i}].name",
                                         f"{task.name!r}: two tasks of the dataset have this name"))
            continue
        seen.add(slug)
        why = _lay(task, registry, mirrors, into / slug)
        if why:
            shutil.rmtree(into / slug, ignore_errors=True)
            refused.append(TaskFileError(registry, f"{dataset.qualified}.tasks[{i}] {task.where()}", why))
    return refused
