"""Conditions: the agent settings a task runs under (output cap per reply, thinking, extension, sampling,
reasoning effort)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, get_args

Thinking = Literal["off", "medium"]
THINKING_BUDGET = {"off": 0, "medium": 1024}
# The reasoning_effort a run may ask of the model on every request; "default" sends none (the server's own).
ReasoningEffort = Literal["default", "none", "low", "medium", "high"]
REASONING_EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)


@dataclass(frozen=True)
class Condition:
    name: str
    max_tokens: int
    thinking: Thinking
    needs_extension: bool = False
    extension: str | None = None
    # Sampling sent with every request; None leaves the server's default. The seed is the run's: attempt k of a task
    # sends seed + k, so seeds differ between attempts and repeat between runs.
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    # Sent with every request beside the thinking switch; None sends nothing, so the server's own default applies
    # (the "default" of --reasoning-effort).
    reasoning_effort: str | None = None

    @property
    def thinking_budget(self) -> int:
        return THINKING_BUDGET[self.thinking]

    def request_extra(self) -> dict:
        """The request fields (beyond max_tokens) that carry this condition's thinking and sampling to an
        OpenAI-style server."""
        extra: dict = {"chat_template_kwargs": {"enable_thinking": self.thinking != "off"}}
        if self.thinking != "off":
            extra["thinking_budget_tokens"] = self.thinking_budget
        return {**extra, **self.sampling(), **self.effort()}

    def sampling(self) -> dict:
        """The sampling fields this condition sets on every request (none: the server's defaults)."""
        chosen = {"temperature": self.temperature, "top_p": self.top_p, "seed": self.seed}
        return {k: v for k, v in chosen.items() if v is not None}

    def effort(self) -> dict:
        """The reasoning_effort field this condition sets on every request (none: the server's default)."""
        return {"reasoning_effort": self.reasoning_effort} if self.reasoning_effort else {}

    def effort_label(self) -> str:
        """The effort asked, as a result row records it: "default" when none was sent."""
        return self.reasoning_effort or "default"

    def for_attempt(self, k: int) -> Condition:
        """The condition as attempt k of a task sends it: the run's sampling seed plus k."""
        return self if self.seed is None else replace(self, seed=self.seed + k)

    def sampling_label(self) -> str:
        """The sampling in words, part of a result row's identity: rows made with other sampling never merge. The
        reasoning effort is part of it too, so rows asked at another effort are other rows on every board."""
        return _sampling_label(self.temperature, self.top_p, self.seed, self.reasoning_effort)


@functools.lru_cache(maxsize=64)  # asked once per attempt, for a handful of distinct samplings
def _sampling_label(temperature: float | None, top_p: float | None, seed: int | None, effort: str | None) -> str:
    parts = [f"temperature {temperature:g}" if temperature is not None else None,
             f"top_p {top_p:g}" if top_p is not None else None,
             f"seed {seed}+k" if seed is not None else None,
             f"reasoning effort {effort}" if effort else None]
    return ", ".join(p for p in parts if p) or "server default"


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
    temperature: float | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    reasoning_effort: str = "default",
) -> list[Condition]:
    """The conditions a run uses; --thinking, --max-tokens, the sampling flags and --reasoning-effort replace the
    values of every one selected."""
    if temperature is not None and not 0 <= temperature <= 2:
        raise ValueError(f"--temperature {temperature:g}: choose a value from 0 to 2")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"--top-p {top_p:g}: choose a value above 0, at most 1")
    if reasoning_effort not in REASONING_EFFORTS:
        raise ValueError(f"--reasoning-effort {reasoning_effort}: choose from {', '.join(REASONING_EFFORTS)}")
    effort = None if reasoning_effort == "default" else reasoning_effort
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
        out.append(replace(cond, temperature=temperature, top_p=top_p, seed=seed, reasoning_effort=effort))
    if len(set(c.name for c in out)) != len(out):
        raise ValueError("--conds lists a condition twice")
    return out
