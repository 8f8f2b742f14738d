"""Conditions: the agent settings a task runs under (output cap per reply, thinking, extension)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

Thinking = Literal["off", "medium"]
THINKING_BUDGET = {"off": 0, "medium": 1024}


@dataclass(frozen=True)
class Condition:
    name: str
    max_tokens: int
    thinking: Thinking
    needs_extension: bool = False
    extension: str | None = None

    @property
    def thinking_budget(self) -> int:
        return THINKING_BUDGET[self.thinking]

    def request_extra(self) -> dict:
        """The request fields (beyond max_tokens) that carry this condition's thinking to an OpenAI-style server."""
        extra: dict = {"chat_template_kwargs": {"enable_thinking": self.thinking != "off"}}
        if self.thinking != "off":
            extra["thinking_budget_tokens"] = self.thinking_budget
        return extra


CONDITIONS = {
    "base": Condition("base", 2048, "off"),
    "think": Condition("think", 4096, "medium"),
    "base8k": Condition("base8k", 8192, "off"),
    "ext": Condition("ext", 8192, "off", needs_extension=True),
    "ext_think": Condition("ext_think", 8192, "medium", needs_extension=True),
}
DEFAULT = ["base", "think", "base8k"]
WITH_EXTENSION = DEFAULT + ["ext", "ext_think"]


def select_conditions(
    names: str | None = None,
    thinking: Thinking | None = None,
    max_tokens: int | None = None,
    extension: str | None = None,
) -> list[Condition]:
    """The conditions a run uses; --thinking and --max-tokens replace the values of every one selected."""
    chosen = [n.strip() for n in names.split(",") if n.strip()] if names else (WITH_EXTENSION if extension else DEFAULT)
    out = []
    for name in chosen:
        if name not in CONDITIONS:
            raise ValueError(f"--conds: unknown condition {name!r}; choose from {', '.join(CONDITIONS)}")
        cond = CONDITIONS[name]
        if cond.needs_extension:
            if not extension:
                raise ValueError(f"condition {name!r} needs a pi extension: give --extension PATH")
            if not Path(extension).exists():
                raise ValueError(f"--extension {extension}: no such file")
            cond = replace(cond, extension=str(Path(extension).resolve()))
        if thinking is not None:
            cond = replace(cond, thinking=thinking)
        if max_tokens is not None:
            if max_tokens < 1:
                raise ValueError("--max-tokens must be a positive number")
            cond = replace(cond, max_tokens=max_tokens)
        out.append(cond)
    if len(set(c.name for c in out)) != len(out):
        raise ValueError("--conds lists a condition twice")
    return out
