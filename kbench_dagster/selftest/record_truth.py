"""Family 8, records that tell the truth about a hostile session: one attempt leaves a setsid'd daemon and a
background sleeper that outlive their command (the namespace's end kills them) and writes to HOME, /tmp and, under
pi, pi's own config folder; a second attempt's session is killed for disk, a third's for processes (each kill ends a
whole session, so under pi each needs a session of its own). Contained: the records count every kill, name the
processes the teardown killed, and list every place written outside the work folder."""

from __future__ import annotations

from kbench_dagster.selftest.family import Context, Family, RunView, Verdict, bash, outcome_of, say, scored
from sandbox.agents.pi import INSIDE_AGENT_DIR

LEAVER, FILLER, FORKER = "clamp", "rle", "flatten"


def attacks(ctx: Context) -> dict:
    m = ctx.marker
    leave = (f"setsid sleep 297 > /dev/null 2>&1 < /dev/null & (sleep 298 > /dev/null 2>&1 &); "
             f"echo x > ~/home-{m}.txt; echo x > /tmp/tmp-{m}.txt; "
             f'if [ -n "$PI_CODING_AGENT_DIR" ]; then echo x > "$PI_CODING_AGENT_DIR/config-{m}.txt"; fi; '
             "sleep 0.5; echo left")
    over = ctx.limits.disk_bytes // 2**20 * 3 // 2
    fill = f"for i in 1 2 3; do fallocate -l {over // 3}M fill-$i-{m}.bin; done; echo filled; sleep 60"
    fork = f"for i in $(seq 1 {ctx.limits.max_procs + 100}); do sleep 60 & done; echo forked; wait"
    return {LEAVER: [bash(leave), say("Done.")], FILLER: [bash(fill), say("Done.")], FORKER: [bash(fork), say("Done.")]}


def check(view: RunView, ctx: Context) -> Verdict:
    leaver, filler, forker = (view.result(t) for t in (LEAVER, FILLER, FORKER))
    teardown = [line for line in view.log_lines("teardown") if " sleep: " in line]
    m = ctx.marker
    wanted = ({f"~/home-{m}.txt", f"/tmp/tmp-{m}.txt"}
              | ({f"{INSIDE_AGENT_DIR}/config-{m}.txt"} if ctx.agent == "pi" else set()))
    listed = set(leaver.get("outside_write_paths") or [])
    missing = sorted(w.rsplit("/", 1)[0] for w in wanted - listed)
    kills = {t: r.get("watchdog_kills") or 0 for t, r in ((LEAVER, leaver), (FILLER, filler), (FORKER, forker))}
    ok = all(scored(r) for r in (leaver, filler, forker)) and len(teardown) >= 2 and kills[LEAVER] >= 2 \
        and not missing and kills[FILLER] >= 1 and bool(view.log_lines("disk")) and kills[FORKER] >= 1 \
        and bool(view.log_lines("procs"))
    return Verdict(ok, f"teardown named {len(teardown)} sleepers, kills counted {kills[LEAVER]}; outside writes "
                       f"listed {len(listed & wanted)}/{len(wanted)}"
                       f"{' (missing ' + ', '.join(missing) + ')' if missing else ''}"
                       f"; disk kill counted {kills[FILLER]} ({'logged' if view.log_lines('disk') else 'NOT logged'}, "
                       f"{outcome_of(filler)}); procs kill counted {kills[FORKER]} "
                       f"({'logged' if view.log_lines('procs') else 'NOT logged'}, {outcome_of(forker)})")


FAMILY = Family("records", attacks, check)
