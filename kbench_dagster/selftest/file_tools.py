"""Family 6, the agent's own file tools against what a command left: a sparse file far bigger than any read should
hold (it takes no disk) and a FIFO no one reads. The read tool reads the big file, then the write tool writes the
FIFO. The builtin agent's tools run in the harness itself; pi's run in the sandbox. Contained: the session ends
within its time limit (a write that waits for a reader forever must not stall the run), the FIFO write is a tool
error under builtin, and the harness process did not grow by anything like the file's size."""

from __future__ import annotations

from kbench_dagster.selftest.family import Context, Family, RunView, Verdict, bash, call, outcome_of, say, scored
from sandbox.isolation.limits import MB

TASK = "clamp"
SPARSE_MB = 900  # under the 1 GB file size limit, so truncate may make it
HARNESS_GROWTH_MB = 128  # the most the harness may grow while the run goes on
GRACE_S = 10.0  # a session killed at its time limit takes a moment to end


def attacks(ctx: Context) -> dict:
    return {TASK: [
        bash(f"mkfifo pipe-{ctx.marker} && truncate -s {SPARSE_MB}M big-{ctx.marker}.bin && ls -ls"),
        call("read", path=f"big-{ctx.marker}.bin"),
        call("write", path=f"pipe-{ctx.marker}", content="does anyone read this?\n"),
        say("Done."),
    ]}


def check(view: RunView, ctx: Context) -> Verdict:
    r = view.result(TASK)
    outputs = view.tool_outputs(TASK)
    ended_in_time = (r.get("duration_s") or 0) <= view.timeout_s + GRACE_S
    grew = view.harness_rss_growth // MB
    ok = scored(r) and ended_in_time and grew <= HARNESS_GROWTH_MB
    read = outputs[1] if len(outputs) > 1 else (True, "no read result")
    fifo = next((text for err, text in outputs[2:3] if err), None)
    if ctx.agent == "builtin":
        ok = ok and not read[0] and fifo is not None and "FIFO" in fifo and not r.get("agent_timeout")
        how = (f"read of the {SPARSE_MB} MB file {'failed' if read[0] else 'returned'}; the FIFO write: "
               f"{(fifo or 'no tool error').split(';')[0][:90]}")
    else:
        how = (f"pi ended {r.get('stop_reason') or '?'} ({r.get('watchdog_kills', 0)} kills, {r.get('tool_errors', 0)} "
               f"tool errors{', at its time limit' if r.get('agent_timeout') else ''})")
    return Verdict(ok, f"{how}; session {r.get('duration_s', 0):.0f}s of its {view.timeout_s:.0f}s; harness grew "
                       f"{grew} MB; attempt {outcome_of(r)}")


FAMILY = Family("file-tools", attacks, check, timeout_s=30.0)
