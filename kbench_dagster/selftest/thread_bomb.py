"""Family 4, a thread bomb beside another attempt: with two workers, the attack's session starts one process of
about 3000 threads (tiny stacks) while the ordinary task's session, at the same time, starts a process after
another for a few seconds before it writes its solution (only if none of them failed to start). Contained: the
other attempt is not hurt (every process started, the task passes) and the process watchdog killed the bomber,
with the reason recorded."""

from __future__ import annotations

import re

from kbench_dagster.selftest.family import (
    ORDINARY_TASK,
    Context,
    Family,
    RunView,
    Script,
    Verdict,
    bash,
    outcome_of,
    say,
    scored,
)

TASK = "clamp"
THREADS = 3000
# The other attempt keeps starting processes this long; the bomb waits a little first, so that it goes off inside
# that window though the two sessions start their tools a moment apart.
STARTS_FOR_S = 8.0
BOMB_DELAY_S = 2.0
BOMB_LOG = "bomb-{marker}.txt"
STARTED = re.compile(r"started (\d+) processes, (\d+) failed")
SPAN = re.compile(r"from ([\d.]+) to ([\d.]+)")
BOMB_TIMES = re.compile(r"^(?:start|\d+ threads at) ([\d.]+)", re.M)

BOMB = r"""sleep {delay}; python3 - <<'EOF'
import threading, time
log = open("{log}", "w", buffering=1)  # the session is killed: the record keeps the file, not the output
log.write("start %f\n" % time.time())
threading.stack_size(64 * 1024)
hold = threading.Event()
started = 0
try:
    for _ in range({threads}):
        threading.Thread(target=hold.wait, daemon=True).start()
        started += 1
        if started % 100 == 0:
            log.write("%d threads at %f\n" % (started, time.time()))
except RuntimeError as exc:
    print("could not start more threads:", exc)
log.write("%d threads at %f, holding\n" % (started, time.time()))
time.sleep(60)
EOF"""

# the other attempt: a failed start (EAGAIN from a shared process limit) shows as a nonzero exit, and then the
# solution is never written
STARTER = r"""python3 - <<'EOF'
import subprocess, sys, time
first, end, started, failed = time.time(), time.monotonic() + {seconds}, 0, []
while time.monotonic() < end:
    try:
        subprocess.run(["/bin/true"], check=True)
        started += 1
    except (OSError, subprocess.CalledProcessError) as exc:
        failed.append(repr(exc))
print("started", started, "processes,", len(failed), "failed", failed[:3], flush=True)
print("from %f to %f" % (first, time.time()))
sys.exit(1 if failed or not started else 0)
EOF"""


def attacks(ctx: Context) -> dict:
    return {TASK: [bash(BOMB.format(delay=BOMB_DELAY_S, threads=THREADS, log=BOMB_LOG.format(marker=ctx.marker))),
                   say("Done.")]}


def victim(ctx: Context, ordinary: Script) -> Script:
    return [bash(STARTER.format(seconds=STARTS_FOR_S))] + ordinary


def check(view: RunView, ctx: Context) -> Verdict:
    r, other = view.result(TASK), view.result(ORDINARY_TASK)
    killed = view.log_lines("procs")
    counts = next((m for _, text in view.tool_outputs(ORDINARY_TASK) if (m := STARTED.search(text))), None)
    started = f"{counts[1]} processes, {counts[2]}" if counts else "no count of its processes,"
    overlap = _overlapped(view, ctx)
    ok = scored(r) and (r.get("watchdog_kills") or 0) >= 1 and bool(killed) and other.get("outcome") == "pass" \
        and (other.get("watchdog_kills") or 0) == 0 and overlap
    why = killed[0].split(" reason=procs ", 1)[1][:90] if killed else "no procs kill in watchdog.log"
    return Verdict(ok, f"bomber {outcome_of(r)}, {r.get('watchdog_kills', 0)} kills: {why}; the attempt beside it "
                       f"started {started} failed while the bomb went off: {'yes' if overlap else 'NO'}, and ended "
                       f"{outcome_of(other)}")


def _overlapped(view: RunView, ctx: Context) -> bool:
    """Whether the bomb was going off (from its start to the last hundred threads it noted) while the other attempt
    was starting processes: both sandboxes read the same clock."""
    span = next((m for _, text in view.tool_outputs(ORDINARY_TASK) if (m := SPAN.search(text))), None)
    bomb = [float(t) for t in BOMB_TIMES.findall(view.final_file(TASK, BOMB_LOG.format(marker=ctx.marker)) or "")]
    return bool(span and bomb) and min(bomb) <= float(span[2]) and max(bomb) >= float(span[1])


FAMILY = Family("thread-bomb", attacks, check, workers=2, ordinary=victim)
