import collections
import sys

with open("/tests/service.log.orig") as fh:
    pristine = fh.read()
counts = collections.Counter(line.split()[2] for line in pristine.splitlines() if line.strip())
want = [f"{level} {n}" for level, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
try:
    got = [line.rstrip() for line in open("/app/levels.txt").read().splitlines() if line.strip()]
except OSError as exc:
    sys.exit(f"no /app/levels.txt: {exc}")
if open("/app/service.log").read() != pristine:
    sys.exit("/app/service.log was changed")
if got != want:
    sys.exit(f"levels.txt holds {got}, expected {want}")
print("levels.txt is right")
