"""Family 5, budgets split to pass under them: in one attempt, a memfd and a file in /dev/shm or a shared mapping
(memory no process has resident, or none alone) and three processes each well under the memory limit, together
over it; in a second attempt a file deleted while held open and grown past the disk budget (no folder walk sees
it). Contained: each session is killed, watchdog.log says memory and disk, and both attempts are scored (the
model's doing), not infra."""

from __future__ import annotations

from kbench_dagster.selftest.family import Context, Family, RunView, Verdict, bash, outcome_of, say, scored
from sandbox.isolation.limits import MB

MEMORY_TASK, DISK_TASK = "clamp", "rle"

SPLIT = r"""python3 - <<'EOF'
import mmap, os, time
MB = 1 << 20

def touched(n):
    return b"m" * (n * MB)  # one allocation, every page written

fd = os.memfd_create("selftest-{marker}")
os.ftruncate(fd, {shared} * MB)
held = mmap.mmap(fd, {shared} * MB)
for off in range(0, {shared} * MB, MB):
    held[off:off + MB] = b"s" * MB
held.close()  # the memfd alone holds it now: no process has it resident
try:  # a tmpfs file nobody holds; the sandbox uid may not write /dev/shm, then a shared mapping
    with open("/dev/shm/selftest-{marker}", "wb") as fh:
        for _ in range({shared}):
            fh.write(b"t" * MB)
    second = "/dev/shm"
except PermissionError:
    mapping = mmap.mmap(-1, {shared} * MB, flags=mmap.MAP_SHARED)
    for off in range(0, {shared} * MB, MB):
        mapping[off:off + MB] = b"t" * MB
    second = "a shared mapping"
for _ in range({procs}):
    if os.fork() == 0:
        block = touched({each})
        time.sleep(120)
        os._exit(0)
print("holding: memfd {shared} MB, %s {shared} MB, {procs} processes of {each} MB" % second, flush=True)
time.sleep(120)
EOF"""

HIDDEN_DISK = r"""python3 - <<'EOF'
import os, time
MB = 1 << 20
fh = open("held-{marker}.bin", "wb")
os.unlink(fh.name)  # gone from every folder, still on the disk while held
os.posix_fallocate(fh.fileno(), 0, {size} * MB)
print("holding a deleted file of {size} MB", flush=True)
time.sleep(120)
EOF"""


def attacks(ctx: Context) -> dict:
    limit, disk = ctx.limits.rss_limit_bytes // MB, ctx.limits.disk_bytes // MB
    # each piece under the limit, the processes together too, everything together well over it
    each, shared = limit * 4 // 15, limit // 4
    return {
        MEMORY_TASK: [bash(SPLIT.format(marker=ctx.marker, shared=shared, procs=3, each=each)), say("Done.")],
        DISK_TASK: [bash(HIDDEN_DISK.format(marker=ctx.marker, size=disk * 3 // 2)), say("Done.")],
    }


def _killed(view: RunView, task: str, reason: str) -> tuple[bool, str]:
    r = view.result(task)
    lines = view.log_lines(reason)
    ok = scored(r) and (r.get("watchdog_kills") or 0) >= 1 and bool(lines) and not r.get("agent_timeout")
    why = lines[0].split(f" reason={reason} ", 1)[1][:120] if lines else f"no {reason} kill in watchdog.log"
    return ok, f"{reason}: {why} ({outcome_of(r)}, {r.get('watchdog_kills', 0)} kills)"


def check(view: RunView, ctx: Context) -> Verdict:
    mem_ok, mem = _killed(view, MEMORY_TASK, "memory")
    disk_ok, disk = _killed(view, DISK_TASK, "disk")
    return Verdict(mem_ok and disk_ok, f"{mem}; {disk}")


FAMILY = Family("memory-split", attacks, check)
