"""Breakdown jobs as data (task_defs/suites/breakdown/JOB/{job.toml,items.jsonl}); a broken file names the file,
the item and the field. job.toml holds the answer form and the two wordings of the instruction."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from task_defs.errors import TaskFileError
from task_defs.itemfiles import ITEMS_FILE, SPEC_FILE, load_items, load_spec
from task_defs.loader import SUITES_DIR

BREAKDOWN_DIR = SUITES_DIR / "breakdown"
Form = Literal["money", "number", "count", "name", "date"]
WORDINGS = ("tested", "first")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Wording(_Strict):
    instruction: str = Field(min_length=1)  # what to do with one item and how to write the answer


class BreakdownSpec(_Strict):
    title: str = Field(min_length=1)
    answer: Form
    first: Wording  # the plain first wording
    tested: Wording  # refined until a careful reader cannot misread the answer's form


class BreakdownItem(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    text: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class BreakdownJob(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    id: str
    folder: Path
    spec: BreakdownSpec
    items: tuple[BreakdownItem, ...]

    def instruction(self, wording: str) -> str:
        return getattr(self.spec, wording).instruction.strip()


def load_breakdown_job(folder: Path) -> BreakdownJob:
    from task_defs.breakdown.answers import read_answer  # the answer key must read as its own form

    folder = Path(folder)
    spec = load_spec(folder, BreakdownSpec)

    def readable(item: BreakdownItem) -> tuple[str, str] | None:
        if read_answer(spec.answer, item.answer) is None:
            return "answer", f"{item.answer!r} is not a {spec.answer} answer"
        return None

    items = load_items(folder, BreakdownItem, readable)
    return BreakdownJob(id=folder.name, folder=folder, spec=spec, items=tuple(items))


def load_breakdown_jobs(root: Path | None = None) -> list[BreakdownJob]:
    root = Path(root) if root else BREAKDOWN_DIR
    if not root.is_dir():
        raise TaskFileError(root, None, "breakdown jobs folder does not exist")
    return [load_breakdown_job(d) for d in sorted(root.iterdir()) if d.is_dir() and d.name != "__pycache__"]


def breakdown_fingerprint(jobs: list[BreakdownJob], way: str, wording: str) -> str:
    """What decides a verdict of one way and wording: the items, the answers, the prompts and the comparison."""
    h = hashlib.sha256(f"{way}/{wording}\0".encode())
    for src in ("answers.py", "prompts.py"):
        h.update((Path(__file__).parent / src).read_bytes())
    for job in jobs:
        for name in (SPEC_FILE, ITEMS_FILE):
            h.update(f"{job.id}/{name}\0".encode())
            h.update((job.folder / name).read_bytes())
    return h.hexdigest()
