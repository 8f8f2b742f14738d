"""Sandbox overhead per run of an empty command (target: median <= 0.25 s), against a bare subprocess."""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sandbox.isolation.bwrap import IsolationConfig, bwrap_path
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.session import run_session
from sandbox.isolation.workdirs import default_work_root

N = int(sys.argv[1]) if len(sys.argv) > 1 else 40


def median_wall(fn) -> float:
    times = []
    for _ in range(N):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    base = default_work_root()
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-overhead-", dir=base) as d:
        wd = Path(d) / "w"
        wd.mkdir()
        bare = median_wall(lambda: subprocess.run(["true"]))
        print(f"bare subprocess `true`:        median {bare * 1000:7.1f} ms over {N}")
        modes = ["none"] + (["bwrap"] if bwrap_path() else [])
        for mode in modes:
            cfg = IsolationConfig(mode=mode)
            m = median_wall(lambda cfg=cfg: run_session(["true"], wd, limits=TEST_LIMITS, cfg=cfg))
            verdict = "OK" if m <= 0.25 else "OVER TARGET"
            print(f"sandbox ({mode:5}) `true`:       median {m * 1000:7.1f} ms over {N}  "
                  f"({m / bare:.1f}x bare; target <= 250 ms: {verdict})")


if __name__ == "__main__":
    main()
