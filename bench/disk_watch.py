"""The disk watchdog's cost: one count of a session's folders (sandbox.isolation.diskspace.used_bytes), timed on a real
tree the size of a JavaScript project (this repo's node_modules, pi and its dependencies), and the share of one
core it takes: the watchdog polls every 1 s, or 20 times the last count's time when that is longer.

    .venv/bin/python bench/disk_watch.py
"""

import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sandbox.isolation.diskspace import used_bytes  # noqa: E402
from sandbox.isolation.limits import AGENT_LIMITS  # noqa: E402
from sandbox.isolation.watchdog import DISK_COST_FACTOR  # noqa: E402

tree = REPO / "node_modules"
if not tree.is_dir():
    sys.exit("bench/disk_watch: run `make setup` first (it installs node_modules, the tree this counts)")
files = sum(len(f) for _, _, f in os.walk(tree))
used_bytes(tree)  # warm the dentry cache, as every poll after the first finds it
times = []
for _ in range(15):
    t = time.perf_counter()
    used = used_bytes(tree)
    times.append(time.perf_counter() - t)
med = statistics.median(times)
interval = max(AGENT_LIMITS.disk_poll_s, DISK_COST_FACTOR * med)
share = med / interval
print(f"disk watchdog: one count of {files} files ({used / 2**20:.0f} MiB) takes median {med * 1000:.1f} ms; "
      f"polled every {interval:.2f} s that is {share:.1%} of one core "
      f"(target <= 5%: {'OK' if share <= 0.05 else 'MISSED'})")
