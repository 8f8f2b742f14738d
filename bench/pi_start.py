"""Where a pi session's time goes: node, pi's own start, the sandbox, the relay, the session around them.

Each round runs every step once, in turn, and each step is set against that round's bare `pi --version` (node
loading pi's modules on the host, then exiting): the median of those ratios holds while the load on the machine
changes. Target: a one-reply session (PiAgent.run, sandboxed) within 1.5x of a bare `pi --version`.

    .venv/bin/python bench/pi_start.py [ROUNDS]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sandbox.agents.pi import GUARD, NODE_FLAGS, PI_PACKAGE, PiAgent, node_modules_of, write_pi_config
from sandbox.agents.record import EventLog
from sandbox.agents.serverproxy import ServerProxy
from sandbox.engine.conditions import select_conditions
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS
from sandbox.isolation.session import run_session
from sandbox.servers.scripted import ScriptedServer

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
CLI = node_modules_of(None) / PI_PACKAGE / "dist" / "cli.js"
COND = select_conditions("base")[0]
BARE = "host: pi --version (bare)"
SESSION = "session: pi, one reply (PiAgent.run)"
PROCESS = "session: its sandboxed process alone"
TAIL = "host: pi's last event to its exit"
TARGET = 1.5


def host(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    cfg = IsolationConfig()
    with tempfile.TemporaryDirectory() as d, ScriptedServer(persona="null", port=0) as srv, \
            ServerProxy(srv.url) as proxy:
        tmp = Path(d)
        tmp.chmod(0o755)  # the sandbox's uid must reach the work folder
        agent = PiAgent(proxy, srv.model_id, write_pi_config(tmp / "pi-agent", srv.url, srv.model_id, [COND]))
        work = tmp / "work"
        work.mkdir()

        def sandboxed(part: str) -> float:
            """pi's own launch line under bwrap, up to `part`: the seconds of run_session alone."""
            with proxy.session(f"kbench-session-{uuid.uuid4().hex}") as sock:
                cmd, binds = agent._command(COND, cfg, sock)
                relay = cmd[:cmd.index("--") + 1]
                cmd = {"bwrap": ["/bin/true"], "relay": [*relay, "/bin/true"],
                       "pi": cmd[:cmd.index("-p")] + ["--version"]}[part]
                t = time.perf_counter()
                res = run_session(cmd, work, limits=AGENT_LIMITS, cfg=cfg, ro_binds=binds, network=False)
                took = time.perf_counter() - t
            assert res.returncode == 0, res.tail
            return took

        def session() -> float:
            t = time.perf_counter()
            stats = agent.run("Say hello.", work, COND, cfg, AGENT_LIMITS, EventLog(tmp / "events.jsonl"))
            took = time.perf_counter() - t
            assert stats.turns == 1 and not stats.infra_error, stats
            times[PROCESS].append(stats.duration_s)
            return took

        def host_session(node_flags: list[str], tail: str) -> float:
            """pi as PiAgent runs it without a sandbox, straight to the server; `tail`: from pi's last event to
            its exit, where node waits for the compile jobs V8 still has running."""
            cmd = ["node", *node_flags, "--require", str(GUARD), str(CLI), *agent._flags(COND, ""), "Say hello."]
            env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent.agent_dir), "KBENCH_PI_KEY": "none"}
            t = time.perf_counter()
            last = None
            with subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE) as proc:
                for line in proc.stdout:
                    if b'"type":"agent_end"' in line:
                        last = time.perf_counter()
            assert proc.returncode == 0 and last is not None
            end = time.perf_counter()
            times[tail].append(end - last)
            return end - t

        without = [f for f in NODE_FLAGS if f != "--liftoff-only"]
        steps = {
            "host: node -e 0": lambda: host(["node", "-e", "0"]),
            BARE: lambda: host(["node", str(CLI), "--version"]),
            "host: pi session, one reply": lambda: host_session(NODE_FLAGS, TAIL),
            "host: same, without --liftoff-only": lambda: host_session(without, TAIL + ", without"),
            "sandbox: /bin/true": lambda: sandboxed("bwrap"),
            "sandbox: relay -- /bin/true": lambda: sandboxed("relay"),
            "sandbox: relay, node, guard, pi --version": lambda: sandboxed("pi"),
            SESSION: session,
        }
        times: dict[str, list[float]] = {k: [] for k in [*steps, PROCESS, TAIL, TAIL + ", without"]}
        for _ in range(ROUNDS):
            for name, step in steps.items():
                times[name].append(step())
    print(f"{ROUNDS} rounds; median and p90, and the median of each round's ratio to its bare `pi --version`:")
    for name, ts in times.items():
        med, p90 = statistics.median(ts), sorted(ts)[min(len(ts) - 1, int(0.9 * len(ts)))]
        print(f"  {name:45} {med * 1000:7.0f} ms ({p90 * 1000:6.0f})  {ratio(ts, times[BARE]):5.2f}x")
    r = ratio(times[SESSION], times[BARE])
    print(f"session / bare pi --version: {r:.2f}x; target <= {TARGET}x: {'OK' if r <= TARGET else 'OVER'}")


def ratio(ts: list[float], ref: list[float]) -> float:
    """Per round, so that the load changing between rounds cancels out."""
    return statistics.median(t / b for t, b in zip(ts, ref))


if __name__ == "__main__":
    main()
