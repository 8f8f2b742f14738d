"""Breakdown jobs as data (task_defs/suites/breakdown/JOB/{job.toml,items.jsonl}); a broken file names the file,
the item and the field. job.toml holds the answer form and the two wordings of the instruction."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from task_defs.canary import CANARY
from task_defs.errors import TaskFileError
from task_defs.loader import SUITES_DIR

BREAKDOWN_DIR = SUITES_DIR / "breakdown"
SPEC_FILE, ITEMS_FILE = "job.toml", "items.jsonl"
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


def _field(exc: ValidationError) -> tuple[str, str]:
    e = exc.errors()[0]
    return ".".join(str(p) for p in e["loc"]), e["msg"]


def load_breakdown_job(folder: Path) -> BreakdownJob:
    from task_defs.breakdown.answers import read_answer  # the answer key must read as its own form

    folder = Path(folder)
    spec_path, items_path = folder / SPEC_FILE, folder / ITEMS_FILE
    if not spec_path.is_file():
        raise TaskFileError(spec_path, None, "missing: every breakdown job folder has a job.toml")
    text = spec_path.read_text(encoding="utf-8")
    if CANARY not in text:
        raise TaskFileError(spec_path, None, f"must carry the canary comment '# {CANARY}'")
    try:
        spec = BreakdownSpec(**tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise TaskFileError(spec_path, None, f"not valid TOML: {exc}") from None
    except ValidationError as exc:
        raise TaskFileError(spec_path, *_field(exc)) from None
    if not items_path.is_file():
        raise TaskFileError(items_path, None, "missing: the job's items, one JSON object per line")
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
            item = BreakdownItem.model_validate(raw)
        except ValidationError as exc:
            where, msg = _field(exc)
            raise TaskFileError(items_path, f"{name}.{where}" if where else name, f"{msg} (line {n})") from None
        if item.id in seen:
            raise TaskFileError(items_path, f"{item.id}.id", f"the id is used twice (line {n})")
        if read_answer(spec.answer, item.answer) is None:
            raise TaskFileError(items_path, f"{item.id}.answer",
                                f"{item.answer!r} is not a {spec.answer} answer (line {n})")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise TaskFileError(items_path, None, "holds no items")
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
