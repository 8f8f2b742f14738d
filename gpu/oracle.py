"""The scripted oracle's knowledge of the kernel tasks (the agent tasks' is in sandbox/servers/scripted): which task
a prompt belongs to, and a kernel that passes the gate, as one write of the stub."""

from __future__ import annotations

from dataclasses import dataclass

from gpu.intake import reference_stub
from gpu.loader import load_kernel_suite, render_prompt
from sandbox.servers.scripted.oracle import Match, PlannedCall, normalize


@dataclass(frozen=True)
class KernelUnit:
    """What the oracle persona reads of a task: its id and its prompts."""

    id: str
    all_prompts: tuple[str, ...]


@dataclass(frozen=True)
class _Suite:
    name: str


class KernelTaskIndex:
    """Every kernel task's prompt, normalized; the plan fills the stub in from the reference."""

    def __init__(self):
        self.suite = _Suite("kernels")
        tasks = load_kernel_suite()
        self._prompts = sorted(((normalize(render_prompt(t)), KernelUnit(t.id, (render_prompt(t),))) for t in tasks),
                               key=lambda e: -len(e[0]))
        self._plans = {t.id: [PlannedCall("write", {"path": t.stub, "content": reference_stub(t)})] for t in tasks}

    def match(self, text: str) -> Match | None:
        haystack = normalize(text)
        for prompt, unit in self._prompts:
            if prompt and prompt in haystack:
                return Match(unit, 0)  # type: ignore[arg-type]
        return None

    def plan_for(self, m: Match) -> list[PlannedCall]:
        return self._plans[m.task.id]
