"""How fast the trial oracles grade in-process (issue 15's target: at least 10,000 trials per second on one core).

Every trial of the suite graded against its reference answer and against an empty reply, round after round, in one
thread; JSON answers (json_schema trials) included, their validator built per answer as in a run. grade() measures
its own CPU time for the budget (oracle_ms) every time: that is a run's default. Then the same again through
graded() as `kbench trials run --heap` grades a row: with the Python heap's high-water mark traced around each
grading (tracemalloc; heap_peak_bytes), which is why it is only done when asked. The shell trials run their
commands in the sandbox, which is not in-process grading: they are timed apart, once each.

    .venv/bin/python bench/trials_grading.py [--seconds 5]
"""

import argparse
import tempfile
import time
from pathlib import Path

from sandbox.chatwork.shell_oracle import SandboxShell
from sandbox.chatwork.trials import ToolTrials
from sandbox.chatwork.trials import graded as graded_row
from task_defs.trials.grading import Answer, grade, reference_answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    every = [u.trial for u in ToolTrials().units]
    trials = [t for t in every if t.oracle.kind != "shell"]
    pairs = [(t, a) for t in trials for a in (reference_answer(t), Answer())]
    by_kind: dict[str, list[float]] = {}
    graded, start = 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for t, a in pairs:
            t0 = time.perf_counter()
            grade(t, a)
            by_kind.setdefault(t.oracle.kind, []).append(time.perf_counter() - t0)
        graded += len(pairs)
    rate = graded / (time.perf_counter() - start)
    print(f"{len(trials)} trials, {graded} gradings in {args.seconds:g} s on one thread: {rate:,.0f} per second")
    for kind, ts in sorted(by_kind.items()):
        print(f"  {kind:12} {len(ts) / sum(ts):>12,.0f} per second ({1e6 * sum(ts) / len(ts):.1f} us each)")
    traced, start = 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for t, a in pairs:
            graded_row(t, a, None)
        traced += len(pairs)
    print(f"with each row's heap mark traced (graded(), `trials run --heap`): "
          f"{traced / (time.perf_counter() - start):,.0f} per second")
    shell_trials = [t for t in every if t.oracle.kind == "shell"]
    with tempfile.TemporaryDirectory() as d:
        shell = SandboxShell(Path(d))
        t0 = time.perf_counter()
        for t in shell_trials:
            grade(t, reference_answer(t), shell)
        took = time.perf_counter() - t0
    print(f"  shell        {len(shell_trials)} trials run in the sandbox: "
          f"{1000 * took / len(shell_trials):.1f} ms each")


if __name__ == "__main__":
    main()
