"""The capability suite as data: one YAML file per category, each item a prompt (or a scripted conversation), the
reference reply, and a grader whose every check is named, weighted and failable.

    # <the canary>
    category: structured_output
    items:
      - id: so_invoice_totals
        tier: hard                       # or normal
        prompt: "..."                    # or turns: ["...", "..."] (multi_turn: each later turn builds on the last)
        files: {app.log: "..."}          # laid in the folder where a kbtest grader runs the answer
        tools: [{type: function, function: {...}}]   # tool_use: offered; the calls are graded as JSON
        reference: "..."                 # the reply that earns every check (turns: one reply per turn)
        wrong: ["..."]                   # plausible wrong replies: each check must fail on at least one of them
        untouched: "..."                 # the code or config the prompt starts from: must not earn full marks
        grader: {kind: fields | structured | constraints | kbtest | judge, ...}

Graders (task_defs/capability/checks.py grades the first three in-process, over text; kbtest runs the answer in our
sandbox with the judge apart from it; judge asks a judge model, and without one the item is not graded):
- fields: `KEY: value` lines of the reply, each check on one key (equals, number within a tolerance, one_of, set);
- structured: the reply (or its fenced block) parsed as json, yaml, toml or ini, a JSON Schema (draft 2020-12) as
  one check, then checks on values by JSON Pointer;
- constraints: verifiable instructions (word and line counts, required and forbidden text, case, bullets, endings);
- kbtest: the reply's fenced block (or the whole reply) written to `answer_file`, then a hidden test of our harness
  whose cases are the checks (`weights` by case name, 1 each otherwise);
- judge: per-criterion yes/no rubric questions for reasoning, writing and research (and only there).

The score of a reply is the weight of its passed checks over the total weight; a pass is full marks.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from task_defs.importers.models import Fixture, SafeFiles

CATEGORIES: tuple[str, ...] = (
    "basic", "tool_use", "structured_output", "coding", "debugging", "long_context", "instruction", "file_ops",
    "multi_turn", "reasoning", "writing", "research", "monitoring", "iac", "ci_repair", "repo_patch", "sysadmin",
    "agentic")
Category = Literal[CATEGORIES]  # type: ignore[valid-type]
JUDGED = ("reasoning", "writing", "research")  # the categories a judge grades (elsewhere: format_conflict items)
AGENT = ("agentic", "repo_patch", "ci_repair")  # worked by the run's agent in a folder, graded by hidden tests
SHIPS = ("agentic", "repo_patch")  # the capability items that count on the Ships board
ID = r"^[a-z][a-z0-9_]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Check(_Strict):
    name: str = Field(pattern=ID)
    weight: float = Field(default=1.0, gt=0)


class FieldCheck(_Check):
    """One `KEY: value` line of the reply. equals: the same text (case and surrounding space ignored); number:
    within `tolerance`; one_of: any of `value` (a list); set: the same items, comma-separated, in any order."""

    field: str = Field(min_length=1)
    op: Literal["equals", "number", "one_of", "set"] = "equals"
    value: Any
    tolerance: float = Field(default=0.0, ge=0)


class FieldsGrader(_Strict):
    kind: Literal["fields"]
    checks: list[FieldCheck] = Field(min_length=1)


class ValueCheck(_Check):
    """A value of the parsed document by JSON Pointer ("" is the whole). equals (text ignoring case and spacing,
    other values exactly), number (within tolerance), one_of (exactly one of the values: case matters), length (of a
    list, object or string), keys (an object holding at least these keys), absent. YAML is read as YAML 1.1 (PyYAML):
    `on:` is the key true and an unquoted 0644 a number, so ask for quoted strings where it matters."""

    path: str = Field(pattern=r"^$|^/")
    op: Literal["equals", "number", "one_of", "length", "keys", "absent"] = "equals"
    value: Any = None
    tolerance: float = Field(default=0.0, ge=0)


class StructuredGrader(_Strict):
    kind: Literal["structured"]
    format: Literal["json", "yaml", "toml", "ini"] = "json"
    schema_: dict | None = Field(default=None, alias="schema")  # one more check, named "schema"
    checks: list[ValueCheck] = []

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


ConstraintRule = Literal["words_between", "lines_between", "contains", "not_contains", "regex", "not_regex",
                         "lowercase", "no_char", "bullets", "starts_with", "ends_with", "paragraphs"]


class Constraint(_Check):
    """A verifiable instruction: words_between/lines_between/paragraphs (min, max), bullets (min, max lines starting
    with "- " or "* "), contains/not_contains/starts_with/ends_with (text, case ignored), regex/not_regex (pattern,
    multiline), lowercase (no capital letter), no_char (text: characters none of which may appear)."""

    rule: ConstraintRule
    text: str | None = None
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _args(self) -> Constraint:
        needs_text = self.rule in ("contains", "not_contains", "regex", "not_regex", "no_char", "starts_with",
                                   "ends_with")
        if needs_text and not self.text:
            raise ValueError(f"rule {self.rule} needs `text`")
        if self.rule in ("words_between", "lines_between", "bullets", "paragraphs") and self.min is None and \
                self.max is None:
            raise ValueError(f"rule {self.rule} needs `min`, `max` or both")
        return self


class ConstraintsGrader(_Strict):
    kind: Literal["constraints"]
    checks: list[Constraint] = Field(min_length=1)


class KbtestGrader(_Strict):
    kind: Literal["kbtest"]
    answer_file: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    extract: Literal["python", "bash", "sql", "yaml", "json", "ini", "any"] = "any"
    test: str = Field(min_length=1)
    weights: dict[str, float] = {}


class JudgeGrader(_Strict):
    kind: Literal["judge"]
    criteria: list[Annotated[str, Field(min_length=8)]] = Field(min_length=3)


Grader = Annotated[FieldsGrader | StructuredGrader | ConstraintsGrader | KbtestGrader | JudgeGrader,
                   Field(discriminator="kind")]


class LongContext(_Strict):
    """A document built for the endpoint's context window (task_defs/capability/context.py): filler from `seed`,
    `needles` (sentences) placed at the given fractions of it. The prompt holds `{document}` where it goes."""

    seed: int
    needles: list[tuple[float, str]] = Field(min_length=1)
    fill: float = Field(default=0.5, gt=0, le=0.9)  # the share of the context the document takes


class Item(_Strict):
    id: str = Field(pattern=ID)
    tier: Literal["normal", "hard"] = "normal"
    prompt: str | None = None
    turns: list[Annotated[str, Field(min_length=1)]] | None = None
    files: SafeFiles = {}
    # tool_use: OpenAI tool schemas offered with the request; the reply is then graded as the JSON
    # {"calls": [{"name": ..., "arguments": {...}}, ...], "content": "..."} (a structured grader)
    tools: list[dict] = []
    context: LongContext | None = None
    reference: str | list[str]
    wrong: list[str] = []
    untouched: str | None = None
    # the prompt's format instructions contradict each other on purpose: whether a reply resolves that sensibly
    # (one instruction followed whole and the choice said, or the clash named) is a judgement, so a judge grades it
    format_conflict: bool = False
    grader: Grader

    @model_validator(mode="after")
    def _shape(self) -> Item:
        if (self.prompt is None) == (self.turns is None):
            raise ValueError("give exactly one of `prompt` or `turns`")
        if self.turns is not None:
            if not isinstance(self.reference, list) or len(self.reference) != len(self.turns):
                raise ValueError("a conversation's `reference` is a list with one reply per turn")
        elif not isinstance(self.reference, str):
            raise ValueError("`reference` is one reply (a list only for `turns`)")
        if self.context is not None and "{document}" not in (self.prompt or ""):
            raise ValueError("a long-context item's prompt holds {document} where the document goes")
        if self.format_conflict and self.grader.kind != "judge":
            raise ValueError("a format_conflict item is graded by the judge (grader kind: judge)")
        return self

    @property
    def prompts(self) -> list[str]:
        return list(self.turns) if self.turns is not None else [self.prompt or ""]

    @property
    def final_reference(self) -> str:
        return self.reference[-1] if isinstance(self.reference, list) else self.reference


class CategoryFile(_Strict):
    """A category's items; the agent categories hold `tasks` instead: JSON task fixtures in YAML
    (task_defs/importers/models.py), worked by the run's agent and graded by their hidden checks (a `hard` tag
    makes the tier)."""

    category: Category
    items: list[Item] = []
    tasks: list[Fixture] = []

    @model_validator(mode="after")
    def _kind(self) -> CategoryFile:
        if self.category in AGENT and (self.items or not self.tasks):
            raise ValueError(f"{self.category} is worked by the agent: its entries are `tasks` (task fixtures)")
        if self.category not in AGENT and (self.tasks or not self.items):
            raise ValueError(f"{self.category} is answered in the chat: its entries are `items`")
        if self.category in JUDGED:
            return self
        judged = [i.id for i in self.items if i.grader.kind == "judge" and not i.format_conflict]
        if judged:
            raise ValueError(f"only {', '.join(JUDGED)} (and format_conflict items) may be judged: "
                             f"{', '.join(judged)}")
        return self
