"""Tool-use trials as data: one chat exchange with tools offered, and an oracle that says what a right answer is.

A family is one folder of task_defs/suites/trials: job.toml holds the family's tool surface (OpenAI function
schemas under [tools.NAME]) and items.jsonl one trial per line, naming the tools it offers. The oracle kinds:

- calls_exact: these calls in this order; partial credit is the longest right prefix over the longer list, so
  extra calls can never reach 1.0;
- calls_set: these calls in any order (parallel calls), matched one to one at most;
- no_call: no tool fits; any call, native or written in the text, fails;
- label: exactly one label of a fixed set, the right one;
- json_schema: a JSON answer valid for a schema (draft 2020-12), with values checked at given paths;
- shell: the commands the model sends to the offered shell tool run in our sandbox over the trial's files; the
  oracle reads stdout, the exit status or a file, and the run's trace must show the programs the trial names (a
  witness), so printing the expected bytes is never a pass.
- machine: the commands the model sends run on a deterministic mock machine (task_defs/trials/machine/: pacman,
  systemctl, sudo, deskctl over a fixture state); the verdict comes from the state they leave (and, for a query,
  from what the machine's own programs printed), never from text the model could write itself.

A trial may bring its own tools (`tool_specs`, e.g. an imported BFCL item) beside the family's.

A trial's grade comes from the work it asks (task_defs/trials/grading.py work_grade), never from a declaration.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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
    # "bfcl": strings compared as BFCL's checker does (lower case; spaces and , . / - _ * ^ removed, ' as ");
    # only for trials imported from BFCL, so their verdicts can be checked against BFCL's own answers
    norm: Literal["bfcl"] | None = None
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


def bounded_regex(pattern: str | None) -> str | None:
    """A stdout_regex is searched by the bounded matcher (sandbox/judge/matcher.py), never by `re`: compiled (and
    kept) here, so a pattern outside its subset is refused where the file, the trial and the field are known."""
    if pattern is not None:
        from sandbox.judge.matcher import Unsupported, compile_regex

        try:
            compile_regex(pattern)
        except Unsupported as exc:
            raise ValueError(f"the bounded matcher refuses this pattern: {exc}") from None
    return pattern


class Shell(_Strict):
    kind: Literal["shell"]
    tool: str = "run_shell"  # the offered tool whose `command` argument is run
    files: dict[str, str] = {}  # the folder the commands start in: relative path -> text
    stdout_regex: str | None = None  # searched in what the commands printed (bounded_regex)
    exit_zero: bool = False  # the last command must exit 0
    file_path: str | None = None  # with file_text: this file must hold exactly that text afterwards
    file_text: str | None = None
    ran: list[str] = []  # programs the trace must show run (the witness); none: `shortcut` must be given
    shortcut: str | None = None  # a command that fakes the product; the gate proves the oracle fails it
    reference: str = Field(min_length=1)  # a command that does the work: the gate proves it passes

    @field_validator("stdout_regex")
    @classmethod
    def _bounded(cls, pattern: str | None) -> str | None:
        return bounded_regex(pattern)

    @model_validator(mode="after")
    def _checks(self):
        if self.stdout_regex is None and not self.exit_zero and self.file_path is None:
            raise ValueError("a shell oracle checks something: stdout_regex, exit_zero or file_path")
        if (self.file_path is None) != (self.file_text is None):
            raise ValueError("file_path and file_text go together")
        if not self.ran and self.shortcut is None:
            raise ValueError("name the programs that must run (ran), or a shortcut the gate proves fails")
        for path in [*self.files, *([self.file_path] if self.file_path else [])]:
            if path.startswith("/") or ".." in path.split("/") or not path.strip():
                raise ValueError(f"{path!r}: paths are relative and stay inside the folder")
        return self


class Machine(_Strict):
    """Commands run on the mock machine (task_defs/trials/machine/): graded from the state they leave."""

    kind: Literal["machine"]
    tool: str = "run_shell"  # the offered tool whose `command` argument runs on the machine
    fixture: str | dict  # a named fixture state (task_defs/trials/machine/fixtures.py) or an inline one
    expect: dict[str, Any] = {}  # state path (packages.ripgrep.installed) -> its value afterwards
    stdout_regex: str | None = None  # a query trial: searched in what one of the machine's programs printed
    max_commands: int | None = Field(default=None, ge=1)  # the request asks for this many commands at most
    reference: list[str] = Field(min_length=1)  # command lines, one call each, that do the work: the gate proves it

    @field_validator("stdout_regex")
    @classmethod
    def _bounded(cls, pattern: str | None) -> str | None:
        return bounded_regex(pattern)

    @model_validator(mode="after")
    def _checks(self):
        from task_defs.trials.machine.oracle import fixture_problem, unchanged_expectation
        from task_defs.trials.machine.state import path_problem

        if not self.expect and self.stdout_regex is None:
            raise ValueError("a machine oracle checks something: expect, stdout_regex or both")
        for path in self.expect:
            problem = path_problem(path)
            if problem:
                raise ValueError(problem)
        problem = fixture_problem(self.fixture)
        if problem:
            raise ValueError(problem)
        if self.stdout_regex is None and unchanged_expectation(self.fixture, self.expect):
            raise ValueError("every expected value already holds on the fixture: doing nothing would pass")
        return self


Oracle = Annotated[CallsExact | CallsSet | NoCall | Label | JsonAnswer | Shell | Machine, Field(discriminator="kind")]
CALL_KINDS = ("calls_exact", "calls_set")


class Message(_Strict):
    role: Literal["system", "user", "assistant"]
    content: str = Field(min_length=1)


class Trial(_Strict):
    id: str = Field(pattern=ID)
    tools: list[str] = []  # names of the tools this trial offers (order shuffled per seed when asked)
    tool_specs: dict[str, dict] = {}  # tools of this trial alone (name -> description, parameters)
    messages: list[Message] = Field(min_length=1)
    oracle: Oracle
    source: Literal["seed", "generated", "imported", "bfcl"] = "seed"

    @model_validator(mode="after")
    def _shape(self):
        if self.messages[-1].role != "user":
            raise ValueError("the last message must be the user's: it is what the model answers")
        if self.oracle.kind in CALL_KINDS + ("shell", "machine") and not self.tools:
            raise ValueError(f"a {self.oracle.kind} trial offers at least one tool")
        if self.oracle.kind in ("shell", "machine") and self.oracle.tool not in self.tools:
            raise ValueError(f"the {self.oracle.kind} oracle runs {self.oracle.tool!r}, which the trial does not offer")
        extra = sorted(set(self.tool_specs) - set(self.tools))
        if extra:
            raise ValueError(f"tool_specs defines {extra[0]!r}, which the trial does not offer")
        if len(set(self.tools)) != len(self.tools):
            raise ValueError("a tool is offered twice")
        return self


class TrialFamily(_Strict):
    """job.toml of a family: what it tests, and the tools its trials may offer."""

    family: str = Field(pattern=ID)
    about: str = Field(min_length=1)
    tools: dict[str, dict] = {}  # name -> {"description": ..., "parameters": JSON schema}
