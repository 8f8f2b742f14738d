"""Load the text jobs (task_defs/suites/textjobs/JOB/{job.toml,items.jsonl}); a broken file names the file, the
item and the field."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

from pydantic import ValidationError

from task_defs.canary import CANARY
from task_defs.errors import TaskFileError
from task_defs.loader import SUITES_DIR
from task_defs.textjobs.models import ITEM_MODELS, Job, JobSpec

TEXTJOBS_DIR = SUITES_DIR / "textjobs"
SPEC_FILE, ITEMS_FILE = "job.toml", "items.jsonl"
SCORING = Path(__file__).parent / "scoring.py"


def _problem(exc: ValidationError) -> tuple[str, str]:
    e = exc.errors()[0]
    return ".".join(str(p) for p in e["loc"]), e["msg"]


def load_job(folder: Path) -> Job:
    folder = Path(folder)
    spec_path = folder / SPEC_FILE
    if not spec_path.is_file():
        raise TaskFileError(spec_path, None, "missing: every text job folder has a job.toml")
    text = spec_path.read_text(encoding="utf-8")
    if CANARY not in text:
        raise TaskFileError(spec_path, None, f"must carry the canary comment '# {CANARY}'")
    try:
        spec = JobSpec(**tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise TaskFileError(spec_path, None, f"not valid TOML: {exc}") from None
    except ValidationError as exc:
        raise TaskFileError(spec_path, *_problem(exc)) from None
    if (spec.family == "classify") != bool(spec.labels):
        raise TaskFileError(spec_path, "labels", "a classify job lists its labels; other families have none")
    items_path = folder / ITEMS_FILE
    if not items_path.is_file():
        raise TaskFileError(items_path, None, "missing: the job's items, one JSON object per line")
    model = ITEM_MODELS[spec.family]
    items, seen = [], set()
    for n, line in enumerate(items_path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TaskFileError(items_path, f"line {n}", f"not JSON: {exc.msg}") from None
        name = raw.get("id", f"line {n}") if isinstance(raw, dict) else f"line {n}"
        try:
            item = model(**raw) if isinstance(raw, dict) else model.model_validate(raw)
        except ValidationError as exc:
            where, msg = _problem(exc)
            raise TaskFileError(items_path, f"{name}.{where}" if where else name, f"{msg} (line {n})") from None
        if item.id in seen:
            raise TaskFileError(items_path, f"{item.id}.id", f"the id is used twice (line {n})")
        if spec.family == "classify" and item.label not in spec.labels:
            raise TaskFileError(items_path, f"{item.id}.label",
                                f"{item.label!r} is not one of the job's labels {spec.labels} (line {n})")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise TaskFileError(items_path, None, "holds no items")
    return Job(id=folder.name, folder=folder, spec=spec, items=tuple(items))


def load_jobs(root: Path | None = None) -> list[Job]:
    root = Path(root) if root else TEXTJOBS_DIR
    if not root.is_dir():
        raise TaskFileError(root, None, "text jobs folder does not exist")
    return [load_job(d) for d in sorted(root.iterdir()) if d.is_dir() and d.name != "__pycache__"]


def fingerprint(jobs: list[Job]) -> str:
    """Changes whenever a prompt, an item, an answer or the scorer changes: what decides a verdict."""
    h = hashlib.sha256(SCORING.read_bytes())
    for job in jobs:
        for name in (SPEC_FILE, ITEMS_FILE):
            h.update(f"{job.id}/{name}\0".encode())
            h.update((job.folder / name).read_bytes())
    return h.hexdigest()
