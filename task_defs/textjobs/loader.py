"""Load the text jobs (task_defs/suites/textjobs/JOB/{job.toml,items.jsonl}); a broken file names the file, the
item and the field."""

from __future__ import annotations

import hashlib
from pathlib import Path

from task_defs.errors import TaskFileError
from task_defs.itemfiles import ITEMS_FILE, SPEC_FILE, load_items, load_spec
from task_defs.loader import SUITES_DIR
from task_defs.textjobs.models import ITEM_MODELS, Job, JobSpec

TEXTJOBS_DIR = SUITES_DIR / "textjobs"
SCORING = Path(__file__).parent / "scoring.py"


def load_job(folder: Path) -> Job:
    folder = Path(folder)
    spec = load_spec(folder, JobSpec)
    if (spec.family == "classify") != bool(spec.labels):
        raise TaskFileError(folder / SPEC_FILE, "labels", "a classify job lists its labels; other families have none")

    def label_known(item) -> tuple[str, str] | None:
        if spec.family == "classify" and item.label not in spec.labels:
            return "label", f"{item.label!r} is not one of the job's labels {spec.labels}"
        return None

    items = load_items(folder, ITEM_MODELS[spec.family], label_known)
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
