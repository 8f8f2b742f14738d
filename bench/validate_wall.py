"""Wall time of `kbench validate` over the whole suite (target: <= 60 s on 2 cores)."""

import os
import subprocess
import sys
import time
from pathlib import Path

KBENCH = Path(sys.executable).parent / "kbench"


def main() -> None:
    workers = os.environ.get("WORKERS", "2")
    t = time.perf_counter()
    cp = subprocess.run([str(KBENCH), "validate", "--workers", workers], capture_output=True, text=True)
    wall = time.perf_counter() - t
    summary = cp.stdout.strip().splitlines()[-1] if cp.stdout.strip() else cp.stderr[-500:]
    print(summary)
    verdict = "OK" if wall <= 60 else "OVER TARGET"
    print(f"kbench validate, whole suite, {workers} workers, {os.cpu_count()} cores: wall {wall:.1f} s "
          f"(target <= 60 s: {verdict}); exit {cp.returncode}")


if __name__ == "__main__":
    main()
