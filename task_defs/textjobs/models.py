"""The text jobs as data: a job (one folder of task_defs/suites/textjobs) is a family, a prompt and its items.

Families fix what an item holds and how a reply is scored (task_defs/textjobs/scoring.py):
classify (a label from a fixed set), fix (a corrected sentence), table (prose into CSV with named columns),
actions (meeting notes into action items as JSON), facts (a news item into five facts as JSON).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Family = Literal["classify", "fix", "table", "actions", "facts"]
FAMILIES: tuple[str, ...] = ("classify", "fix", "table", "actions", "facts")
ID = r"^[a-z][a-z0-9_]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _iso_date(v: str | None) -> str | None:
    if v is not None:
        dt.date.fromisoformat(v)  # raises ValueError naming the bad value
        if len(v) != 10:
            raise ValueError(f"{v!r} is not a YYYY-MM-DD date")
    return v


class ClassifyItem(_Strict):
    id: str = Field(pattern=ID)
    text: str = Field(min_length=1)
    label: str


class FixItem(_Strict):
    id: str = Field(pattern=ID)
    text: str = Field(min_length=1)
    fixed: str = Field(min_length=1)


class TableItem(_Strict):
    id: str = Field(pattern=ID)
    text: str = Field(min_length=1)
    columns: list[str] = Field(min_length=2)
    rows: list[list[str]] = Field(min_length=1)

    @model_validator(mode="after")
    def _shape(self) -> TableItem:
        for i, row in enumerate(self.rows, 1):
            if len(row) != len(self.columns):
                raise ValueError(f"row {i} has {len(row)} cells for {len(self.columns)} columns")
            if any(not c.strip() for c in row):
                raise ValueError(f"row {i} has an empty cell")
        keys = [r[0].casefold() for r in self.rows]
        if len(set(keys)) != len(keys):
            raise ValueError("the first column is the row key and must be unique")
        return self


class Action(_Strict):
    owner: str = Field(min_length=1)
    task: str = Field(min_length=1)
    keywords: list[str] = Field(min_length=1)
    due: str | None

    @field_validator("due")
    @classmethod
    def _due(cls, v: str | None) -> str | None:
        return _iso_date(v)

    @field_validator("keywords")
    @classmethod
    def _lower(cls, v: list[str]) -> list[str]:
        if any(k != k.lower() or not k.strip() for k in v):
            raise ValueError("keywords are lower-case and not empty")
        return v


class ActionsItem(_Strict):
    id: str = Field(pattern=ID)
    text: str = Field(min_length=1)
    actions: list[Action] = Field(min_length=1)

    @field_validator("actions")
    @classmethod
    def _owners(cls, v: list[Action]) -> list[Action]:
        owners = [a.owner.casefold() for a in v]
        if len(set(owners)) != len(owners):
            raise ValueError("each owner has at most one action per item")
        return v


class Facts(_Strict):
    who: str = Field(min_length=1)
    what: str = Field(min_length=1)
    where: str = Field(min_length=1)
    when: str
    number: str

    @field_validator("when")
    @classmethod
    def _when(cls, v: str) -> str:
        return _iso_date(v)

    @field_validator("number")
    @classmethod
    def _number(cls, v: str) -> str:
        float(v)  # ValueError names the text
        return v


class FactsItem(_Strict):
    id: str = Field(pattern=ID)
    text: str = Field(min_length=1)
    facts: Facts
    what_keywords: list[str] = Field(min_length=1)
    number_of: str = Field(min_length=1)


ITEM_MODELS: dict[str, type[BaseModel]] = {"classify": ClassifyItem, "fix": FixItem, "table": TableItem,
                                           "actions": ActionsItem, "facts": FactsItem}
Item = ClassifyItem | FixItem | TableItem | ActionsItem | FactsItem


class JobSpec(_Strict):
    """job.yaml: what the job is and how the model is asked (items come from items.jsonl beside it)."""

    family: Family
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)  # a template: {text}, and {labels} / {columns} / {number_of} by family
    labels: list[str] | None = None  # classify only


class Job(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    id: str
    folder: Path
    spec: JobSpec
    items: tuple[Item, ...]

    @property
    def family(self) -> str:
        return self.spec.family

    def get(self, item_id: str) -> Item:
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(f"job {self.id} has no item {item_id!r}")

    def prompt_for(self, item: Item) -> str:
        """The one user message an item is asked with."""
        extra: dict = {}
        if self.family == "classify":
            extra["labels"] = ", ".join(self.spec.labels or [])
        elif self.family == "table":
            extra["columns"] = ",".join(item.columns)
        elif self.family == "facts":
            extra["number_of"] = item.number_of
        return self.spec.prompt.format(text=item.text.strip(), **extra).strip()
