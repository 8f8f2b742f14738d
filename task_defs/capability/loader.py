"""Read the capability suite: every *.yaml file of task_defs/suites/capability (or a given folder), one category
a file, checked by pydantic; every problem names the file and the field, ids are unique across files, and every
file carries the canary."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml
from pydantic import ValidationError

from task_defs.canary import CANARY
from task_defs.capability.models import CategoryFile
from task_defs.errors import TaskFileError

ROOT = Path(__file__).resolve().parents[1] / "suites" / "capability"
# what decides a verdict besides the item files: the models and the in-process checks
RULE_FILES = (Path(__file__).parent / "models.py", Path(__file__).parent / "checks.py",
              Path(__file__).parent / "context.py")


def _where(raw, loc: tuple) -> str:
    parts = list(loc)
    if len(parts) >= 2 and parts[0] in ("items", "tasks") and isinstance(parts[1], int):
        entries = raw.get(parts[0]) if isinstance(raw, dict) else None
        entry = entries[parts[1]] if isinstance(entries, list) and parts[1] < len(entries) else None
        name = entry.get("id") if isinstance(entry, dict) and isinstance(entry.get("id"), str) else \
            f"{parts[0]}[{parts[1]}]"
        parts = [name, *parts[2:]]
    return ".".join(str(p) for p in parts) or "(file)"


def load_file(path: Path) -> CategoryFile:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(path, None, f"cannot be read: {exc}") from None
    if CANARY not in text:
        raise TaskFileError(path, None, f"must carry the canary comment '# {CANARY}'")
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise TaskFileError(path, f"line {mark.line + 1}" if mark else None, f"not YAML: {exc}") from None
    try:
        return CategoryFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise TaskFileError(path, _where(raw, first["loc"]), first["msg"]) from None


def load_categories(root: Path | None = None) -> list[tuple[CategoryFile, Path]]:
    """Each category file with its path, in category order; ids unique across the suite."""
    root = Path(root or ROOT)
    files = sorted(root.glob("*.yaml"))
    if not files:
        raise TaskFileError(root, None, "holds no category files (*.yaml)")
    out, seen = [], {}
    for path in files:
        doc = load_file(path)
        for entry_id in [i.id for i in doc.items] + [t.task_id for t in doc.tasks]:
            if entry_id in seen:
                raise TaskFileError(path, f"{entry_id}.id", f"the id is used twice (also in {seen[entry_id].name})")
            seen[entry_id] = path
        out.append((doc, path))
    return out


def fingerprint(root: Path | None = None) -> str:
    """Changes whenever an item file or a rule that grades them changes."""
    h = hashlib.sha256()
    for path in sorted(Path(root or ROOT).glob("*.yaml")) + list(RULE_FILES):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def agent_fixtures(root: Path | None = None) -> tuple[list, list[Path]]:
    """The agent categories' task fixtures, each with its file, and the files read (to materialise them as the
    suite `capability_agent`, run by the agent like any suite)."""
    cats = load_categories(root)
    return [(fx, path) for doc, path in cats for fx in doc.tasks], [path for _doc, path in cats]
