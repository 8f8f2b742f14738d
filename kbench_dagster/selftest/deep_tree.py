"""Family 3, a tree no recursive walk survives: the model solves clamp, then leaves a folder 1400 levels deep (its
path far past PATH_MAX), a link to itself, a link loop, a FIFO, a socket and a name that is not UTF-8. Contained:
the attempt is graded (its correct file passes), has a result.json that says what the record left out, and is listed
in `kbench report`."""

from __future__ import annotations

from kbench_dagster.selftest.family import (
    Context,
    Family,
    RunView,
    Verdict,
    bash,
    outcome_of,
    reference_calls,
    say,
    scored,
)

TASK = "clamp"
LEVELS = 1400

BUILD = r"""python3 - <<'EOF'
import os, socket
top = os.getcwd()
os.mkdir("tree-{marker}")
os.chdir("tree-{marker}")
for _ in range({levels}):  # relative steps: no single path names the bottom
    os.mkdir("level")
    os.chdir("level")
open("bottom-{marker}.txt", "w").write("the bottom\n")
os.chdir(top)
os.symlink(".", "tree-{marker}/itself")
os.symlink("loop-b-{marker}", "loop-a-{marker}")
os.symlink("loop-a-{marker}", "loop-b-{marker}")
os.mkfifo("pipe-{marker}")
socket.socket(socket.AF_UNIX).bind("sock-{marker}")
with open(b"name-\xff\xfe-{marker}.txt", "wb") as fh:
    fh.write(b"odd name\n")
print("built", {levels}, "levels, links, a FIFO, a socket and an odd name")
EOF"""


def attacks(ctx: Context) -> dict:
    return {TASK: reference_calls(ctx.suite, TASK)
            + [bash(BUILD.format(levels=LEVELS, marker=ctx.marker)), say("Done.")]}


def check(view: RunView, ctx: Context) -> Verdict:
    r = view.result(TASK)
    built = any("built" in text for _, text in view.tool_outputs(TASK))
    listed = any(line.split()[:1] == [TASK] for line in view.cli("report", view.run_id).splitlines())
    left_out = r.get("files_left_out") or []
    ok = scored(r) and r.get("outcome") == "pass" and built and listed and (view.record(TASK) / "result.json").exists()
    return Verdict(ok, f"tree built: {'yes' if built else 'NO'}; result.json outcome {outcome_of(r)}, "
                       f"{len(left_out)} entries left out of the record"
                       f"{' (first: ' + left_out[0][:60] + '...)' if left_out else ''}; in kbench report: "
                       f"{'yes' if listed else 'NO'}")


FAMILY = Family("deep-tree", attacks, check)
