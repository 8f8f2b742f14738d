"""The words every part of kbench uses for what happened to a unit of work, defined once.

Python code imports the tuples; SQL gets its literals from `sql_list`, so a new outcome is added here and nowhere
else. Never imports dagster (sandbox and gpu use it too).
"""

from __future__ import annotations

from typing import Literal

# What a hidden test, oracle or metric said about the model's work: these count in pass rates.
SCORED = ("pass", "wrong", "crash", "timeout", "nofile")
# Not the model's doing: a requirement missing on this machine (skipped) or the server, the machine or our own
# harness failing (infra). Both are left out of pass rates and shown as attrition.
UNSCORED = ("skipped", "infra")
OUTCOMES = SCORED + UNSCORED
Outcome = Literal["pass", "wrong", "crash", "timeout", "nofile", "skipped", "infra", "pending", "judge_failed"]
# Recorded, not graded yet (a run that defers grading, e.g. kernels graded when the GPU is free): a regrade
# gives it one of the outcomes above. Never counted, never attrition.
PENDING = "pending"
# An LLM judge asked and failed (unreachable, or never an answer in the asked form): not the model's doing, so never
# counted, but shown apart from pending (the judge needs looking at), and a regrade asks the judge again.
JUDGE_FAILED = "judge_failed"

# The kernel grader's verdicts. `infra` is the model server or the machine failing during the agent's session,
# never the model; `skipped_no_gpu` a task that needs a device this machine lacks.
KERNEL_STATUSES = ("compile_error", "runtime_error", "timeout", "incorrect", "cheat_rejected", "flagged", "ok",
                   "skipped_no_gpu", "infra")
KERNEL_UNSCORED = ("skipped_no_gpu", "infra")

TIERS = ("easy", "medium", "hard", "terminal")
CATEGORIES = ("programming", "repair", "terminal", "chain")


def sql_list(values: tuple[str, ...]) -> str:
    """A SQL IN-list of fixed words, e.g. ('pass', 'wrong'): only for the constants above, never for user text."""
    for v in values:
        if not v.replace("_", "").isalnum():
            raise ValueError(f"{v!r} is not a vocabulary word")
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


SCORED_SQL = sql_list(SCORED)
UNSCORED_SQL = sql_list(UNSCORED)
