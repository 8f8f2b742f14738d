"""`kbench validate` over the whole suite beside N CPU hogs (`yes > /dev/null`), for N = 0, 2, 4.

Prints the wall time of each pass and every verdict (task status, or the outcome of its untouched folder, reference,
mutants or alternatives) that differs from the pass without hogs. The target: no verdict changes.

    .venv/bin/python bench/validate_under_load.py [HOGS ...]     (default: 0 2 4)
"""

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KBENCH = Path(sys.executable).parent / "kbench"
ROW = re.compile(r"^(OK|FAIL|SKIPPED)\s+(\S+)\s+[\d.]+s\s+(.*)$")


def verdicts(stdout: str) -> dict[str, str]:
    """task -> its status and the summary of its variants, e.g. 'OK untouched=nofile reference=pass mutants 3/3'."""
    out = {}
    for line in stdout.splitlines():
        m = ROW.match(line)
        if m:
            out[m.group(2)] = f"{m.group(1)} {m.group(3)}"
    return out


def one_pass(hogs: int) -> tuple[float, dict[str, str], str]:
    procs = [subprocess.Popen("exec yes > /dev/null", shell=True) for _ in range(hogs)]
    try:
        with tempfile.TemporaryDirectory(prefix="validate-load-") as work:
            Path(work).chmod(0o755)
            t = time.perf_counter()
            cp = subprocess.run([str(KBENCH), "validate", "--workers", "2", "--work", work],
                                capture_output=True, text=True)
            wall = time.perf_counter() - t
    finally:
        for p in procs:
            p.kill()
            p.wait()
    summary = cp.stdout.strip().splitlines()[-1] if cp.stdout.strip() else cp.stderr[-300:]
    return wall, verdicts(cp.stdout), summary


def main() -> None:
    counts = [int(a) for a in sys.argv[1:]] or [0, 2, 4]
    base = None
    for n in counts:
        wall, got, summary = one_pass(n)
        changed = [] if base is None else [t for t in sorted(set(base) | set(got)) if base.get(t) != got.get(t)]
        print(f"{n} hogs: wall {wall:.1f} s; {summary.split('; suite')[0]}; "
              f"{'baseline' if base is None else f'{len(changed)} verdicts changed'}", flush=True)
        for t in changed:
            print(f"    {t}: {base.get(t)!r} -> {got.get(t)!r}")
        base = base if base is not None else got


if __name__ == "__main__":
    main()
