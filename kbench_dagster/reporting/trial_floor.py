"""`kbench trials floor`: bounds from the references, no model involved. Each trial's reference answer
(grading.reference_answer) is graded by its own oracle and the grading itself is measured:

- latency_ms: the oracle's time on the reference. In-process oracles (calls, label, JSON) are timed with
  time.thread_time_ns, the grading thread's CPU time, so another thread or process cannot inflate it; a shell
  oracle runs a sandboxed process, so its time is wall time (time.perf_counter_ns). Both include tracemalloc's
  own overhead (it is on for the whole floor), so they are upper bounds of the untraced cost.
- tokens_est: an ESTIMATE of the reference answer's size in tokens, not a tokenizer's count: the characters of
  what the model would send (its calls as the JSON list [{"name", "arguments"}], else its text: a label, a JSON
  answer, words) divided by TOKEN_CHARS (4 characters a token, rounded up; at least 1).
- heap_peak_bytes: the Python heap's high-water mark while grading, above what was allocated when the row began
  (tracemalloc, started for the floor only and stopped after unless something else had started it; the peak is
  reset for every row).

The rows are bounds of what grading a right answer costs, never measurements of a model: nothing here badges a
trial or joins a strike's rows.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import statistics
import time
import tracemalloc
from collections import defaultdict

from sandbox.chatwork.trial_checks import shell_runner
from task_defs.trials.grading import Answer, ShellRunner, grade, reference_answer
from task_defs.trials.models import GRADES

TOKEN_CHARS = 4  # the estimate's rule: about 4 characters of English/JSON a token
TOKEN_RULE = f"estimate: ceil(characters of the answer as sent / {TOKEN_CHARS})"


def sent_text(answer: Answer) -> str:
    """What the model would send for this answer: its calls as JSON, else its text."""
    if answer.calls:
        return json.dumps([{"name": c.name, "arguments": c.arguments} for c in answer.calls], ensure_ascii=False)
    return answer.text


def token_estimate(answer: Answer) -> int:
    return max(1, math.ceil(len(sent_text(answer)) / TOKEN_CHARS))


def sample_units(units: list, n: int | None, seed: int) -> list:
    """All the units, or n of them picked by `seed` alone (the same n and seed pick the same trials), in suite
    order."""
    if n is None or n >= len(units):
        return list(units)
    if n < 1:
        raise ValueError("--sample must be a positive number of trials")
    picked = {u.id for u in random.Random(seed).sample(sorted(units, key=lambda u: u.id), n)}
    return [u for u in units if u.id in picked]


@contextlib.contextmanager
def _traced():
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        yield
    finally:
        if started:
            tracemalloc.stop()


def floor_row(unit, shell: ShellRunner) -> dict:
    """One trial's reference graded and measured (tracemalloc must be tracing)."""
    trial = unit.trial
    answer = reference_answer(trial)
    wall = trial.oracle.kind == "shell"
    clock = time.perf_counter_ns if wall else time.thread_time_ns
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    t0 = clock()
    verdict = grade(trial, answer, shell)
    elapsed = clock() - t0
    peak = tracemalloc.get_traced_memory()[1]
    return {"trial": trial.id, "family": unit.family.id, "grade": unit.grade, "oracle": trial.oracle.kind,
            "passed": verdict.passed, "cause": verdict.cause, "latency_ms": round(elapsed / 1e6, 4),
            "clock": "wall" if wall else "thread", "tokens_est": token_estimate(answer),
            "heap_peak_bytes": max(0, peak - base)}


def floor_rows(units: list, shell: ShellRunner | None = None) -> list[dict]:
    with shell_runner(shell) as sh, _traced():
        return [floor_row(u, sh) for u in units]


def _spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "max": max(values)} if values else {"median": 0, "max": 0}


def _aggregate(rows: list[dict]) -> dict:
    return {"trials": len(rows), "passed": sum(r["passed"] for r in rows),
            "latency_ms": _spread([r["latency_ms"] for r in rows]),
            "tokens_est": _spread([r["tokens_est"] for r in rows]),
            "heap_peak_bytes": _spread([r["heap_peak_bytes"] for r in rows])}


def summarise(rows: list[dict]) -> dict:
    """Per family and grade (families in the rows' order, grades easy to hard), per family, and in total."""
    by_group: dict[tuple, list[dict]] = defaultdict(list)
    by_family: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_group[(r["family"], r["grade"])].append(r)
        by_family[r["family"]].append(r)
    order = list(by_family)
    groups = sorted(by_group, key=lambda k: (order.index(k[0]), GRADES.index(k[1]) if k[1] in GRADES else 99))
    return {"groups": [{"family": f, "grade": g, **_aggregate(by_group[(f, g)])} for f, g in groups],
            "families": {f: _aggregate(rs) for f, rs in by_family.items()},
            "total": _aggregate(rows), "tokens": TOKEN_RULE}


def failures(rows: list[dict]) -> list[dict]:
    return [r for r in rows if not r["passed"]]


def render_floor(summary: dict) -> str:
    head = (f"{'family':14} {'grade':7} {'trials':>6} {'pass':>5} {'ms med':>8} {'ms max':>8} {'tok med':>7} "
            f"{'tok max':>7} {'KiB med':>8} {'KiB max':>8}")

    def line(name: str, grade_: str, a: dict) -> str:
        lat, tok, heap = a["latency_ms"], a["tokens_est"], a["heap_peak_bytes"]
        return (f"{name:14} {grade_:7} {a['trials']:6} {a['passed']:5} {lat['median']:8.3f} {lat['max']:8.3f} "
                f"{tok['median']:7.0f} {tok['max']:7.0f} {heap['median'] / 1024:8.1f} {heap['max'] / 1024:8.1f}")

    lines = [head]
    for g in summary["groups"]:
        lines.append(line(g["family"], g["grade"], g))
    lines.append("-" * len(head))
    for fam, a in summary["families"].items():
        lines.append(line(fam, "all", a))
    lines.append(line("total", "all", summary["total"]))
    lines.append(f"bounds from the references, not a model's measurement (they badge no trial); ms: the oracle's "
                 f"thread CPU time (shell: wall time), under tracemalloc; tok: an {summary['tokens']}; KiB: the "
                 f"heap's high-water mark while grading")
    return "\n".join(lines)
