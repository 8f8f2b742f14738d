"""How fast the trial oracles grade in-process (issue 15's target: at least 10,000 trials per second on one core).

Every trial of the suite graded against its reference answer and against an empty reply, round after round, in one
thread; JSON answers (json_schema trials) included, their validator built per answer as in a run.

    .venv/bin/python bench/trials_grading.py [--seconds 5]
"""

import argparse
import time

from sandbox.chatwork.trials import ToolTrials
from task_defs.trials.grading import Answer, grade, reference_answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    trials = [u.trial for u in ToolTrials().units]
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


if __name__ == "__main__":
    main()
