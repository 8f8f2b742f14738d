"""The `kbench selftest` command: run the families, print the containment table and the host check."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from kbench_dagster.selftest import FAMILIES
from kbench_dagster.selftest.family import JudgeFamily
from kbench_dagster.selftest.runner import AGENTS, Outcome, Row, run_selftest
from kbench_dagster.terminal import visible
from sandbox.isolation.limits import MB
from sandbox.isolation.workdirs import default_work_root


def _pick(value: str | None, known: list[str], what: str) -> list[str]:
    if not value:
        return list(known)
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in known]
    if unknown:
        raise ValueError(f"--{what}: {', '.join(unknown)} unknown; choose from {', '.join(known)}")
    return chosen


def render_table(rows: list[Row]) -> str:
    # evidence quotes what a sandbox wrote (file contents, process names): shown, never obeyed
    cells = [(r.family, r.agent, "yes" if r.verdict.contained else "no", visible(r.verdict.evidence, layout=False))
             for r in rows]
    head = ("attack", "agent", "contained", "evidence")
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(3)]
    line = lambda c: "  ".join(v.ljust(w) for v, w in zip(c[:3], widths)) + "  " + c[3]  # noqa: E731
    return "\n".join([line(head), line(tuple("-" * w for w in widths) + ("-" * 8,))] + [line(c) for c in cells])


def render_host(out: Outcome) -> str:
    h = out.host
    lines = [f"host: {len(h.processes)} processes of a sandbox uid outlived their session"
             + "".join(f"\n  {visible(p, layout=False)}" for p in h.processes),
             f"host: {len(h.made)} entries made by the attacks at the top of /tmp, HOME or beside the work and runs "
             f"folders ({h.other_new} other new entries there, made by other programs)"
             + "".join(f"\n  {visible(p, layout=False)}" for p in h.made),
             f"host: the API key (a random marker) found in {len(h.key_hits)} files under the runs folder"
             + "".join(f"\n  {visible(p, layout=False)}" for p in h.key_hits)]
    return "\n".join(lines)


def docker_unavailable() -> str | None:
    """Why the families that need a Docker engine (and the base image their tasks' images build on) cannot run
    here, or None."""
    from sandbox.containers import engine, image

    try:
        engine.require_image(image.image_name())
    except engine.EngineUnavailable as exc:
        return str(exc)
    return None


def cmd_selftest(args) -> int:
    families = {f.name: f for f in FAMILIES}
    chosen = [families[n] for n in _pick(args.families, list(families), "families")]
    in_docker = [f for f in chosen if isinstance(f, JudgeFamily) and f.docker]
    without = docker_unavailable() if in_docker else None
    if without:
        chosen = [f for f in chosen if f not in in_docker]
        print(f"selftest: {', '.join(f.name for f in in_docker)} left out: {without}", file=sys.stderr, flush=True)
    agents = _pick(args.agents, list(AGENTS), "agents")
    work = Path(args.work) if args.work else default_work_root()
    started = time.monotonic()

    def progress(row: Row) -> None:
        print(f"{'contained' if row.verdict.contained else 'NOT CONTAINED':13} {row.family:17} {row.agent:8} "
              f"{row.wall_s:5.1f}s", file=sys.stderr, flush=True)

    print(f"selftest: {len(chosen)} attack families x {len(agents)} agents, {args.jobs} at once; records in "
          f"{args.runs}/selftest-*", file=sys.stderr, flush=True)
    out = run_selftest(chosen, agents, work, Path(args.runs), jobs=args.jobs, on_row=progress)
    print(render_table(out.rows))
    print()
    print(render_host(out))
    lim = out.limits
    print(f"\n{sum(r.verdict.contained for r in out.rows)} of {len(out.rows)} contained, host "
          f"{'clean' if out.host.clean else 'NOT clean'}, in {time.monotonic() - started:.0f}s (limits: memory "
          f"{lim.rss_limit_bytes // MB} MB and disk {lim.disk_bytes // MB} MB per session, {lim.max_procs} tasks)")
    return 0 if out.contained else 1


def add_selftest_parser(sub) -> None:
    """Register `selftest` on the kbench subparsers."""
    s = sub.add_parser("selftest", help="the hostile fault suite: every attack family under each agent, in real runs; "
                                        "a containment table, exit 1 if anything got out")
    s.add_argument("--agents", help=f"comma-separated, of {', '.join(AGENTS)} (default both)")
    s.add_argument("--families", help=f"comma-separated, of {', '.join(f.name for f in FAMILIES)} (default all)")
    s.add_argument("--work", help="work root (default ~/kbench-work or $KBENCH_WORK)")
    s.add_argument("--runs", default="runs",
                   help="where the records go (default ./runs), as selftest-STAMP-FAMILY-AGENT")
    s.add_argument("--jobs", type=int, default=2, help="rows run at once (default 2)")
    s.set_defaults(func=cmd_selftest)
