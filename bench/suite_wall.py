"""Wall time of `make test`'s pytest part, quiet or beside CPU hogs (issue 34's targets: <= 6 min quiet, <= 10 min
beside two `yes > /dev/null` hogs, no failure in three hog runs in a row).

    .venv/bin/python bench/suite_wall.py [--hogs N] [--runs K]

Each run is the Makefile's own pytest command line (read from `make -n test`), so what is timed is what CI runs;
the line printed per run is the row of bench/RESULTS.md's table: commit, hogs, wall, passed, failed.
"""

import argparse
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def pytest_command() -> list[str]:
    """The pytest invocation of `make test`, as make would run it."""
    dry = subprocess.run(["make", "-n", "test"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in dry.splitlines() if "-m pytest" in ln)
    return shlex.split(line.split(";")[0].lstrip("@"))


def cpu_ticks() -> tuple[int, int]:
    """The machine's busy and total CPU ticks since boot (/proc/stat): what every process used, the sandboxed
    ones in their own pid namespaces included, which a parent's rusage can miss."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def one_run(hogs: int, log: str | None) -> dict:
    hogged = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(hogs)]
    try:
        started, (busy0, total0) = time.monotonic(), cpu_ticks()
        cp = subprocess.run(pytest_command(), cwd=REPO, capture_output=True, text=True)
        wall = time.monotonic() - started
        busy1, total1 = cpu_ticks()
        if log:
            Path(log).write_text(cp.stdout + cp.stderr)
    finally:
        for h in hogged:
            h.kill()
            h.wait()
    tail = cp.stdout.strip().splitlines()[-1] if cp.stdout.strip() else cp.stderr[-300:]
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|skipped)", tail)}
    failures = [ln for ln in cp.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    return {"wall": wall, "rc": cp.returncode, "counts": counts, "failures": failures, "tail": tail,
            "busy": (busy1 - busy0) / max(1, total1 - total0)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hogs", type=int, default=0)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--log", help="where each run's whole pytest output goes (RUN is replaced by the run's number)")
    args = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    print("command:", " ".join(pytest_command()), flush=True)
    bad = 0
    for n in range(args.runs):
        r = one_run(args.hogs, args.log.replace("RUN", str(n + 1)) if args.log else None)
        c = r["counts"]
        print(f"| {commit} | {args.hogs} hogs | run {n + 1} | {r['wall'] / 60:.1f} min | {c.get('passed', 0)} passed | "
              f"{c.get('failed', 0)} failed | {c.get('error', 0) + c.get('errors', 0)} errors | exit {r['rc']} | "
              f"CPU busy {r['busy']:.0%} |",
              flush=True)
        for f in r["failures"]:
            print("   ", f, flush=True)
        bad += r["rc"] != 0
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
