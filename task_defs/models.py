"""The task model: what task.toml holds, checked by pydantic."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

Category = Literal["programming", "repair", "terminal", "chain"]
Tier = Literal["easy", "medium", "hard", "terminal"]
Language = Literal["python", "shell", "javascript", "none"]

TEST_TIMEOUT_S = 90
AGENT_TIMEOUT_S = 600


def check_relative(value: str) -> str:
    p = PurePosixPath(value)
    if not value or p.is_absolute() or value.startswith("~"):
        raise ValueError(f"must be a relative path inside the task, got {value!r}")
    if ".." in p.parts:
        raise ValueError(f"must not contain '..', got {value!r}")
    return value


# what the sandbox binds from the host or makes itself (its system, /proc, /dev, the agent's home, /tmp): a task's
# folder cannot be seen there; anywhere else (/app, /srv/app, /root, /workspace) is an empty path in the sandbox
SYSTEM_TOPS = {"bin", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "tmp", "usr"}


# Variables a task may not set for its sessions: the sandbox's own, and those that make a shell, a loader or an
# interpreter run or load a file they name (the work folder's, in a hidden test's session: the judge's rule 1)
RESERVED_VARIABLES = {"PATH", "HOME", "SHELL", "USER", "TMPDIR", "LANG", "LC_ALL", "TERM", "ENV", "BASH_ENV", "IFS",
                      "PS4", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE", "PROMPT_COMMAND"}
RESERVED_PREFIXES = ("LD_", "DYLD_", "PYTHON", "PYTEST", "NODE_", "PERL", "RUBY", "GIT_", "BASH_FUNC_", "GCONV_",
                     "JAVA_TOOL")


def env_problem(name: str) -> str | None:
    """Why a task cannot set this variable for its sessions, or None."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return "not a variable name"
    if name in RESERVED_VARIABLES or name.startswith(RESERVED_PREFIXES):
        return "a variable of the sandbox's own, or one that makes a program load a file it names"
    return None


def mount_problem(inside: str) -> str | None:
    """Why a task's folder cannot be seen at `inside` in the sandbox, or None."""
    p = PurePosixPath(inside)
    if not p.is_absolute() or not re.fullmatch(r"(/[A-Za-z0-9._-]+)+", inside) or ".." in p.parts:
        return "an absolute path of plain names (like /app)"
    if p.parts[1] in ("home", "tmp") and p.parts[1:3] != ("home", "kbench"):
        # /tmp or /home itself (the session's /tmp is then the work folder, its HOME /root, as for Docker's root), or
        # a folder of its own under them (the sandbox's HOME is /home/kbench, its /tmp the session's)
        return None
    if p.parts[1] in SYSTEM_TOPS:
        return f"/{p.parts[1]} is the sandbox's own"
    return None


class Step(BaseModel):
    """One step of a task graded step by step (a Harbor multi-step task): its prompt is the task's prompt of the
    same place; its folder, steps/<name>/, holds upload/ and setup.sh (laid over the work folder and run before its
    session), tests/test_task.py (its own hidden test, run right after its session) and solution/ (its
    reference)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    min_reward: float | None = Field(default=None, ge=0, le=1)  # below it, the later steps are not run
    test_timeout: int | None = Field(default=None, gt=0, le=600)


class Task(BaseModel):
    """One task: a prompt (or a chain of prompts), its files, and how it is graded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    title: str = Field(min_length=3)
    category: Category
    tier: Tier
    language: Language = "none"
    prompt: str | None = None
    prompts: list[str] | None = None
    file: str | None = None  # the file the task names; missing after the agent -> nofile
    answer: str | None = None  # the answer file, if the job has an answer
    test: str = "tests/test_task.py"
    agent_timeout: int = Field(default=AGENT_TIMEOUT_S, gt=0)
    test_timeout: int = Field(default=TEST_TIMEOUT_S, gt=0, le=600)
    requires: list[str] = Field(default_factory=list)
    no_canary: list[str] = Field(default_factory=list)  # data files whose format cannot hold a comment
    max_steps: int | None = Field(default=None, gt=0)  # model requests per agent session at most (fixtures' limit)
    # {path inside the sandbox: folder of the work folder ("." for itself)}: a task made for a container sees its
    # files where the container had them (/app), and its tests where they were put (/tests)
    mounts: dict[str, str] = Field(default_factory=dict)
    unavailable: str | None = None  # why this machine cannot give the task its environment: its attempts are skipped
    # The container image every session of this task runs in (the docker sandbox, whatever the run's isolation):
    # its system, with the task's files in the work folder as always. It must be in the local engine (no registry
    # is reached) and give bash and /usr/bin/python3, which the judge runs on.
    image: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9._-]+)?$")
    # Pinned Python packages the hidden test's commands get in place of the judge's own pytest (a Harbor verifier's
    # `uvx --with pytest==8.4.1 ...`): installed by the judge once per set, never by the test
    # (sandbox/judge/verifier_env.py)
    verifier_requires: list[str] = Field(default_factory=list)
    # Variables every session of the task has (its setup, the agent's, the hidden test's): a Dockerfile's ENV
    env: dict[str, str] = Field(default_factory=dict)
    # What every session of the task may use (Harbor's [environment] cpus, memory_mb, storage_mb), in place of the
    # run's own limits: memory and disk are the watchdogs' limits on either sandbox; CPUs are the container's share
    # on the docker sandbox (bwrap has no CPU quota)
    cpus: float | None = Field(default=None, gt=0)
    memory_mb: int | None = Field(default=None, gt=0)
    storage_mb: int | None = Field(default=None, gt=0)
    # Graded step by step (one Step a prompt, each with its own hidden test); a pass needs every step's
    steps: list[Step] = Field(default_factory=list)

    _folder: Path | None = PrivateAttr(default=None)

    @field_validator("file", "answer", "test")
    @classmethod
    def _relative(cls, v: str | None) -> str | None:
        return None if v is None else check_relative(v)

    @field_validator("no_canary")
    @classmethod
    def _relative_list(cls, v: list[str]) -> list[str]:
        return [check_relative(x) for x in v]

    @field_validator("mounts")
    @classmethod
    def _mounts(cls, v: dict[str, str]) -> dict[str, str]:
        for inside, rel in v.items():
            problem = mount_problem(inside)
            if problem:
                raise ValueError(f"mount {inside!r}: {problem}")
            if rel != ".":
                check_relative(rel)
        return v

    @field_validator("env")
    @classmethod
    def _env(cls, v: dict[str, str]) -> dict[str, str]:
        for name in v:
            problem = env_problem(name)
            if problem:
                raise ValueError(f"env {name!r}: {problem}")
        return v

    @field_validator("requires")
    @classmethod
    def _commands(cls, v: list[str]) -> list[str]:
        for name in v:
            if not name or "/" in name:
                raise ValueError(f"requires lists command names, got {name!r}")
        return v

    @model_validator(mode="after")
    def _one_prompt_form(self) -> Task:
        if (self.prompt is None) == (self.prompts is None):
            raise ValueError("give exactly one of 'prompt' or 'prompts'")
        if self.prompts is not None and (len(self.prompts) < 1 or not all(p.strip() for p in self.prompts)):
            raise ValueError("'prompts' must be a non-empty list of non-empty prompts")
        if self.prompt is not None and not self.prompt.strip():
            raise ValueError("'prompt' must not be empty")
        if self.prompts is not None and self.category != "chain":
            raise ValueError("only chain tasks have several 'prompts'")
        if self.steps and (self.prompts is None or len(self.prompts) != len(self.steps)):
            raise ValueError("a task graded step by step has one prompt a step in 'prompts'")
        if len({s.name for s in self.steps}) != len(self.steps):
            raise ValueError("its steps have names of their own")
        if (self.category in ("terminal", "chain")) != (self.tier == "terminal"):
            raise ValueError("terminal and chain tasks, and only they, have tier 'terminal'")
        return self

    @property
    def folder(self) -> Path:
        assert self._folder is not None, "task was not loaded from a folder"
        return self._folder

    @property
    def all_prompts(self) -> list[str]:
        """The prompts in order: one agent session each, in the same work folder."""
        return list(self.prompts) if self.prompts is not None else [self.prompt or ""]

    @property
    def setup_dir(self) -> Path:
        return self.folder / "setup"

    @property
    def setup_script(self) -> Path:
        return self.folder / "setup.sh"

    @property
    def solution_dir(self) -> Path:
        return self.folder / "solution"

    @property
    def mutant_dirs(self) -> list[Path]:
        """Plausible wrong solutions the hidden test must fail (mutants/<name>/: files, note.txt, solve.sh)."""
        return _variant_dirs(self.folder / "mutants")

    @property
    def alternative_dirs(self) -> list[Path]:
        """Correct solutions other than the reference, which the hidden test must pass (alternatives/<name>/)."""
        return _variant_dirs(self.folder / "alternatives")

    def step_dir(self, i: int) -> Path:
        return self.folder / "steps" / self.steps[i].name

    @property
    def test_dir(self) -> Path:
        return (self.folder / self.test).parent

    @property
    def graded_file(self) -> str | None:
        """The file whose absence means 'nofile': the answer file, else the named file."""
        return self.answer or self.file


VARIANT_NOTE = "note.txt"  # one line saying what the variant does; never copied into the work folder


def _variant_dirs(parent: Path) -> list[Path]:
    return sorted(p for p in parent.iterdir() if p.is_dir() and p.name != "__pycache__") if parent.is_dir() else []


def note_lines(folder: Path) -> list[str]:
    """The lines of a variant's note.txt besides comments (the canary) and blank ones: the loader wants exactly one."""
    lines = [ln.strip() for ln in (folder / VARIANT_NOTE).read_text(encoding="utf-8").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def variant_note(folder: Path) -> str:
    """The one line of a variant's note.txt that says what it does."""
    return next(iter(note_lines(folder)), "")


class Suite(BaseModel):
    """A loaded suite: its tasks in a stable order and a fingerprint over every file."""

    model_config = ConfigDict(frozen=True)

    name: str
    root: Path
    tasks: tuple[Task, ...]
    fingerprint: str

    def get(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"no task {task_id!r} in suite {self.name!r}")

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.tasks]
