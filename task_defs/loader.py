"""Load task folders into models; every problem names the file and the field."""

from __future__ import annotations

import hashlib
import sys
import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from task_defs.canary import CANARY
from task_defs.errors import TaskFileError
from task_defs.importers.harbor import is_harbor_source, load_harbor
from task_defs.importers.loader import is_fixture_source, load_fixtures
from task_defs.importers.materialize import materialize
from task_defs.importers.swe import TRUST_HINT
from task_defs.models import VARIANT_NOTE, Suite, Task, note_lines

M = TypeVar("M", bound=BaseModel)

SUITES_DIR = Path(__file__).parent / "suites"
FIXTURES_DIR = SUITES_DIR / "fixtures"  # bundled JSON fixture suites, loaded by name (core, smoke)
HARNESS = Path(__file__).parent / "harness" / "kbtest.py"
CAPABILITY_AGENT = "capability_agent"
IGNORED = {"__pycache__", ".pytest_cache"}


def suite_root(name: str = "kbench") -> Path:
    return SUITES_DIR / name


def task_files(folder: Path) -> list[Path]:
    """Every file of a task folder, sorted, refusing symlinks that leave the folder."""
    out = []
    root = folder.resolve()
    for p in sorted(folder.rglob("*")):
        if any(part in IGNORED for part in p.relative_to(folder).parts):
            continue
        if p.is_symlink():
            target = p.resolve()
            if target != root and root not in target.parents:
                raise TaskFileError(p, None, f"symlink escapes the task folder (points to {target})")
        if p.is_file():
            out.append(p)
    return out


def _field_of(err: dict) -> str:
    return ".".join(str(x) for x in err["loc"]) or "(task)"


def load_toml_model(toml_path: Path, model: type[M], field_of=None) -> M:
    """A task.toml read into a pydantic model; any problem names the file and the field.

    `field_of(error) -> (field, message)` lets a model name the field of a check that spans several fields."""
    if not toml_path.is_file():
        raise TaskFileError(toml_path, None, f"missing {toml_path.name}")
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskFileError(toml_path, None, f"not valid TOML: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field, msg = field_of(first) if field_of else (_field_of(first), first["msg"])
        raise TaskFileError(toml_path, field, msg) from None


def load_task(folder: Path) -> Task:
    folder = Path(folder)
    toml_path = folder / "task.toml"
    task = load_toml_model(toml_path, Task)
    task._folder = folder
    _check_files(task, toml_path)
    return task


def _check_files(task: Task, toml_path: Path) -> None:
    files = task_files(task.folder)
    test = task.folder / task.test
    if not test.is_file():
        raise TaskFileError(toml_path, "test", f"hidden test {task.test!r} does not exist")
    if not task.solution_dir.is_dir():
        raise TaskFileError(toml_path, None, "missing solution/ folder (the reference)")
    for i, step in enumerate(task.steps):
        if not (task.step_dir(i) / task.test).is_file():
            raise TaskFileError(toml_path, f"steps.{step.name}", f"missing steps/{step.name}/{task.test}, its test")
    for name in task.no_canary:
        if not (task.folder / name).is_file():
            raise TaskFileError(toml_path, "no_canary", f"{name!r} is not a file of the task")
    for kind, dirs in (("mutants", task.mutant_dirs), ("alternatives", task.alternative_dirs)):
        for d in dirs:
            note = d / VARIANT_NOTE
            if not note.is_file():
                raise TaskFileError(note, None, f"every folder in {kind}/ needs a {VARIANT_NOTE}: one line saying "
                                                "what this variant does (the mistake, or how it differs)")
            lines = note_lines(d)
            if len(lines) != 1:
                raise TaskFileError(note, None,
                                    f"must hold exactly one line besides the canary comment, has {len(lines)}")
            if not any(f.name != VARIANT_NOTE for f in d.rglob("*") if f.is_file()):
                raise TaskFileError(d, None, f"{kind} folder {d.name!r} has no files besides its note")
    exempt = {task.folder / n for n in task.no_canary}
    for f in files:
        if f in exempt:
            continue
        if CANARY.encode() not in f.read_bytes():
            raise TaskFileError(f, "canary", f"file lacks the canary string {CANARY!r} (or list it in no_canary)")


def fingerprint(paths_root: Path, tasks: list[Task]) -> str:
    """sha256 over the harness and every file of every task, by relative path and content."""
    h = hashlib.sha256()
    entries = [("harness/kbtest.py", HARNESS)]
    for t in tasks:
        entries += [(f"{t.id}/{f.relative_to(t.folder).as_posix()}", f) for f in task_files(t.folder)]
    for rel, f in sorted(entries):
        h.update(rel.encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def load_suite(root: Path | str = "kbench") -> Suite:
    """A suite by name (a folder of task folders under task_defs/suites, or a bundled fixture file there) or by
    path (a folder of task folders, JSON task fixtures as a file or a folder of files, or Harbor task folders)."""
    if isinstance(root, str) and "/" not in root and not suite_root(root).is_dir() and \
            (FIXTURES_DIR / f"{root}.json").is_file():
        root = FIXTURES_DIR / f"{root}.json"
    if root == CAPABILITY_AGENT:  # the capability suite's agent categories, kept in its category files
        from task_defs.capability.loader import agent_fixtures

        fixtures, files = agent_fixtures()
        return _load_folder(materialize(CAPABILITY_AGENT, fixtures, files), CAPABILITY_AGENT)
    root = suite_root(root) if isinstance(root, str) and "/" not in root else Path(root)
    if root.suffix == ".jsonl":
        raise TaskFileError(root, None, f"a SWE-style dataset is read by `kbench swe`, never as a suite: {TRUST_HINT}")
    if is_harbor_source(root):
        name, fixtures, files = _harbor_suite(root)
        return _load_folder(materialize(name, fixtures, files), name)
    if is_fixture_source(root):
        name, fixtures, files = load_fixtures(root)
        folder = materialize(name, fixtures, files)
        return _load_folder(folder, name)
    if not root.is_dir():
        raise TaskFileError(root, None, "suite folder does not exist")
    return _load_folder(root, root.name)


def _harbor_suite(root: Path):
    """A folder of Harbor tasks: a broken folder is named on stderr and left out, the others load (a dataset of
    thousands is not held back by one); with none left, the first refusal is the error."""
    refused: list[TaskFileError] = []
    name, fixtures, files = load_harbor(root, refused)
    if refused and not fixtures:
        raise refused[0]
    for err in refused:
        sys.stderr.write(f"warning: left out of suite {name}: {err}\n")
    return name, fixtures, files


def _load_folder(root: Path, name: str) -> Suite:
    tasks: list[Task] = []
    seen: dict[str, Path] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in IGNORED):
        task = load_task(folder)
        if task.id in seen:
            raise TaskFileError(folder / "task.toml", "id", f"duplicate id {task.id!r}, also in {seen[task.id]}")
        if task.id != folder.name:
            raise TaskFileError(folder / "task.toml", "id",
                                f"must equal the folder name {folder.name!r}, got {task.id!r}")
        seen[task.id] = folder
        tasks.append(task)
    if not tasks:
        raise TaskFileError(root, None, "suite has no tasks")
    return Suite(name=name, root=root, tasks=tuple(tasks), fingerprint=fingerprint(root, tasks))


def select(suite: Suite, spec: str | None) -> list[Task]:
    """Tasks by comma-separated ids, categories or tiers; None or '' means all."""
    if not spec:
        return list(suite.tasks)
    wanted = [s.strip() for s in spec.split(",") if s.strip()]
    chosen: list[Task] = []
    for token in wanted:
        hits = [t for t in suite.tasks if token in (t.id, t.category, t.tier)]
        if not hits:
            raise ValueError(
                f"--tasks: {token!r} is not a task id, category or tier of suite {suite.name!r}; "
                f"see `kbench list` for the ids"
            )
        chosen += [t for t in hits if t not in chosen]
    order = {t.id: i for i, t in enumerate(suite.tasks)}
    return sorted(chosen, key=lambda t: order[t.id])
