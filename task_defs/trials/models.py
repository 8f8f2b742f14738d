"""Tool-use trials as data: one chat exchange with tools offered, and an oracle that says what a right answer is.

A family is one folder of task_defs/suites/trials: job.toml holds the family's tool surface (OpenAI function
schemas under [tools.NAME]) and items.jsonl one trial per line, naming the tools it offers. The oracle kinds:

- calls_exact: these calls in this order; partial credit is the longest right prefix over the longer list, so
  extra calls can never reach 1.0;
- calls_set: these calls in any order (parallel calls), matched one to one at most;
- no_call: no tool fits; any call, native or written in the text, fails;
- label: exactly one label of a fixed set, the right one;
- json_schema: a JSON answer valid for a schema (draft 2020-12), with values checked at given paths.

A trial's grade comes from the work it asks (task_defs/trials/grading.py work_grade), never from a declaration.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ID = r"^[a-z][a-z0-9_]*$"
GRADES = ("easy", "medium", "hard")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ArgRule(_Strict):
    """What one argument (or one value of a JSON answer) must be: equal, one of, a number within a tolerance."""

    eq: Any = None
    any_of: list[Any] | None = Field(default=None, min_length=1)
    num: float | None = None
    tol: float = Field(default=0.0, ge=0)
    fold: bool = False  # strings compared without case and outer spaces
    optional: bool = False  # may be left out; when given it must match

    @model_validator(mode="after")
    def _one_rule(self):
        given = [self.any_of is not None, self.num is not None, "eq" in self.model_fields_set]
        if sum(given) != 1:
            raise ValueError("give exactly one of eq, any_of, num")
        return self


class CallRule(_Strict):
    name: str = Field(min_length=1)
    args: dict[str, ArgRule] = {}


class CallsExact(_Strict):
    kind: Literal["calls_exact"]
    calls: list[CallRule] = Field(min_length=1)


class CallsSet(_Strict):
    kind: Literal["calls_set"]
    calls: list[CallRule] = Field(min_length=2)


class NoCall(_Strict):
    kind: Literal["no_call"]


class Label(_Strict):
    kind: Literal["label"]
    labels: list[str] = Field(min_length=2)
    answer: str

    @model_validator(mode="after")
    def _answer_is_a_label(self):
        if self.answer not in self.labels:
            raise ValueError(f"answer {self.answer!r} is not one of the labels {self.labels}")
        if len({x.casefold().strip() for x in self.labels}) != len(self.labels):
            raise ValueError("two labels are the same once case and spaces are set aside")
        return self


class JsonAnswer(_Strict):
    kind: Literal["json_schema"]
    json_schema: dict = Field(alias="schema")
    checks: dict[str, ArgRule] = {}  # dotted path (a.b.0.c) -> rule
    reference: Any  # a right answer: the gate proves it passes

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


Oracle = Annotated[CallsExact | CallsSet | NoCall | Label | JsonAnswer, Field(discriminator="kind")]
CALL_KINDS = ("calls_exact", "calls_set")


class Message(_Strict):
    role: Literal["system", "user", "assistant"]
    content: str = Field(min_length=1)


class Trial(_Strict):
    id: str = Field(pattern=ID)
    tools: list[str] = []  # names of the family's tools this trial offers (order shuffled per seed when asked)
    messages: list[Message] = Field(min_length=1)
    oracle: Oracle
    source: Literal["seed", "generated", "imported"] = "seed"

    @model_validator(mode="after")
    def _shape(self):
        if self.messages[-1].role != "user":
            raise ValueError("the last message must be the user's: it is what the model answers")
        if self.oracle.kind in CALL_KINDS and not self.tools:
            raise ValueError(f"a {self.oracle.kind} trial offers at least one tool")
        if len(set(self.tools)) != len(self.tools):
            raise ValueError("a tool is offered twice")
        return self


class TrialFamily(_Strict):
    """job.toml of a family: what it tests, and the tools its trials may offer."""

    family: str = Field(pattern=ID)
    about: str = Field(min_length=1)
    tools: dict[str, dict] = {}  # name -> {"description": ..., "parameters": JSON schema}
