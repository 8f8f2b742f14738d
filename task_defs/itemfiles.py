"""Jobs stored as a folder with a job.toml and an items.jsonl (the text jobs, the breakdown): reading both, with
every problem naming the file, the item and the field."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Callable, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from task_defs.canary import CANARY
from task_defs.errors import TaskFileError

SPEC_FILE, ITEMS_FILE = "job.toml", "items.jsonl"
S = TypeVar("S", bound=BaseModel)
I = TypeVar("I", bound=BaseModel)  # noqa: E741


def _where(exc: ValidationError) -> tuple[str, str]:
    e = exc.errors()[0]
    return ".".join(str(p) for p in e["loc"]), e["msg"]


def load_spec(folder: Path, model: type[S]) -> S:
    """job.toml: the canary comment, valid TOML, the model's fields."""
    path = Path(folder) / SPEC_FILE
    if not path.is_file():
        raise TaskFileError(path, None, f"missing: every job folder has a {SPEC_FILE}")
    text = path.read_text(encoding="utf-8")
    if CANARY not in text:
        raise TaskFileError(path, None, f"must carry the canary comment '# {CANARY}'")
    try:
        return model(**tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise TaskFileError(path, None, f"not valid TOML: {exc}") from None
    except ValidationError as exc:
        raise TaskFileError(path, *_where(exc)) from None


def load_items(folder: Path, model: type[I], check: Callable[[I], tuple[str, str] | None] | None = None,
               name: str = ITEMS_FILE) -> list[I]:
    """items.jsonl (or `name`): one object per line, each valid for `model`, ids unique; `check(item)` may name a
    further problem as (field, message)."""
    path = Path(folder) / name
    if not path.is_file():
        raise TaskFileError(path, None, "missing: the job's items, one JSON object per line")
    items, seen = [], set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = orjson.loads(line)  # a suite of thousands of lines loads in every command that uses it
        except orjson.JSONDecodeError:
            try:  # what only the json module reads (NaN), and its words for what is wrong
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskFileError(path, f"line {n}", f"not JSON: {exc.msg}") from None
        name = raw.get("id", f"line {n}") if isinstance(raw, dict) else f"line {n}"
        try:
            item = model.model_validate(raw)
        except ValidationError as exc:
            where, msg = _where(exc)
            raise TaskFileError(path, f"{name}.{where}" if where else name, f"{msg} (line {n})") from None
        if item.id in seen:
            raise TaskFileError(path, f"{item.id}.id", f"the id is used twice (line {n})")
        problem = check(item) if check else None
        if problem:
            raise TaskFileError(path, f"{item.id}.{problem[0]}", f"{problem[1]} (line {n})")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise TaskFileError(path, None, "holds no items")
    return items
