"""The score of a kernel that passed the gate, and the audit of its times. The score is uncapped, as KBench's: a
figure above the device's physical peak is kept and flagged for a person to look at (`above_peak`), never dropped,
and so is one near that peak, and on a GPU one far faster than the eager reference or far slower on the grader's
own clock than reported."""

from __future__ import annotations

import math

from gpu import device as devmod
from gpu.models import KernelTask

FLAG_PEAK_FRACTION = 0.8
FLAG_EAGER_SPEEDUP = 10.0
WALL_FACTOR, WALL_SLACK_S = 4.0, 0.002  # the grader's clock per call may exceed the sample by this much


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def audit(result: dict, task: KernelTask, dev: str, round_trip_s: float) -> tuple[str, str, float | None]:
    """(status, reason, score) for the timed shapes in `result`; records the peak, the flags and the round trip
    there."""
    achieved = [s["achieved"] for s in result["shapes"]]
    if any(not math.isfinite(a) or a <= 0 for a in achieved):
        return "cheat_rejected", "a timed call took no measurable time", None
    score = geomean(achieved)
    pk, source = devmod.peak(result["device"], task.metric, task.dtype)
    result["peak"] = {"value": pk, "source": source}
    if pk is not None:
        over = [s for s in result["shapes"] if s["achieved"] > pk]
        result["above_peak"] = bool(over)
        if over:
            result["flags"].append(f"above_peak: {over[0]['achieved']:.1f} {task.unit} on {over[0]['shape']} is above "
                                   f"the device's physical peak {pk:.1f} {task.unit}; kept uncapped, for review")
        elif any(s["achieved"] > FLAG_PEAK_FRACTION * pk for s in result["shapes"]):
            result["flags"].append(f"above {FLAG_PEAK_FRACTION:.0%} of the physical peak ({pk:.1f} {task.unit})")
    # Two medians taken at different moments: on a shared CPU a few descheduled eager samples (the CPU config takes
    # 4) make an honest kernel look 60x faster (seen beside a busy test run), so like the clock check below this
    # flag is raised only on a GPU, where gradings run one at a time. Correctness and the peak do not move with load.
    fast = [s for s in result["shapes"] if dev == "cuda" and s["speedup_vs_eager"] > FLAG_EAGER_SPEEDUP]
    if fast:
        result["flags"].append(f"{fast[0]['speedup_vs_eager']:.1f}x faster than the eager reference on "
                               f"{fast[0]['shape']}")
    # The grader's own clock around each call (request to reply) against what the worker reported: an honest
    # call costs its sample plus a round trip and the output poisoning, a few times the sample at most. Only on a
    # GPU, where gradings run one at a time: on a shared CPU the scheduler's delays swamp it.
    rtt = result["round_trip_s"] = round_trip_s
    odd = [s for s in result["shapes"] if dev == "cuda"
           and s["grader_wall_median_s"] - rtt > WALL_FACTOR * s["median_s"] + WALL_SLACK_S]
    if odd:
        result["flags"].append(f"the grader's clock saw {odd[0]['grader_wall_median_s'] * 1e6:.0f} us per call on "
                               f"{odd[0]['shape']} against {odd[0]['median_s'] * 1e6:.0f} us reported")
    if result["flags"]:
        return "flagged", "; ".join(result["flags"]), score
    return "ok", "", score
