"""What a run is: its settings (RunSpec), its attempts in seed-major order, its manifest, and what its agent
sessions share (the agent with its proxy, the server's slots). sandbox/engine/scheduler.py executes it."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sandbox.agents.builtin import BuiltinAgent
from sandbox.agents.pi import PiAgent, node_modules_of, write_pi_config
from sandbox.agents.serverproxy import ServerProxy
from sandbox.engine.attempt_folders import environment_versions, gpus, write_json_atomic
from sandbox.engine.chat import ChatClient
from sandbox.engine.conditions import Condition
from sandbox.engine.kinds import WorkKind
from sandbox.engine.slots import CHAT_QUEUE, ServerSlots, slot_capacity
from sandbox.isolation import uids
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.diskspace import RESERVE_BYTES
from sandbox.isolation.limits import AGENT_LIMITS, Limits
from sandbox.servers.hardware import endpoint_record
from sandbox.servers.probe import describe_server

# Seconds of agent time per attempt, by tier, inside which a pass counts as usable: a small model that needs half an
# hour for an easy task passes it, but nobody would wait for it.
LATENCY_BUDGETS = {"easy": 120.0, "medium": 300.0, "hard": 600.0, "terminal": 300.0}


@dataclass
class RunSpec:
    run_id: str
    model: str
    conds: list[Condition]
    tasks: list  # units of the run's kind: agent tasks (task_defs Task) or kernel tasks (gpu KernelTask)
    url: str = "http://127.0.0.1:8093/v1"
    seeds: int = 1
    seed_list: list[int] | None = None  # exactly these seeds instead of 1..seeds (a Dagster cell is one seed)
    workers: int = 1
    timeout_s: float = 600.0
    agent: str = "pi"  # pi | builtin | api (chat-only kinds: the harness asks the server, no agent)
    tool_format: str = "auto"  # builtin only: native | text | auto
    runs_root: Path = Path("runs")
    work_root: Path | None = None
    pi_path: str | None = None
    keep_work: bool = False
    # Record the agent's final files now and grade them later (sandbox/engine/regrade.py): kernel runs grade where and
    # when the GPU is free, never while the model server waits.
    defer_grading: bool = False
    api_key: str | None = field(default=None, repr=False)  # never written anywhere
    limits: Limits = AGENT_LIMITS
    isolation: IsolationConfig = field(default_factory=IsolationConfig)
    server_wait_s: float = 120.0
    # Sessions at once against this server across every run on the machine (sandbox/engine/slots.py). None: what the
    # server reports (llama.cpp's /props total_slots), else no limit beyond `workers`; 0: no limit.
    server_slots: int | None = None
    slots_root: Path | None = None
    # Free space an attempt needs to start, on the work and runs disks; None: the session's disk budget plus a
    # reserve (sandbox/isolation/diskspace.py), so that one session alone cannot fill the disk.
    min_free_bytes: int | None = None
    # The run stops (nothing more is started, finished attempts are kept) once the server has not answered for this
    # long, instead of waiting server_wait_s for every remaining attempt and recording each as infra.
    server_down_stop_s: float = 600.0
    # The agent's time an attempt may take and still count as usable (klbench's latency budget): None, the tier's
    # default (LATENCY_BUDGETS); 0, no budget. A pass over budget stays a pass; usability and completion drop it.
    latency_budget_s: float | None = None
    # The endpoint as its owner declared it: name, hardware, hardware_class, site (sandbox/servers/hardware.py);
    # the manifest adds what the server says of itself.
    endpoint: dict = field(default_factory=dict)

    def budget_for(self, tier: str | None) -> float | None:
        if self.latency_budget_s is not None:
            return self.latency_budget_s or None
        return LATENCY_BUDGETS.get(tier or "")

    def room_needed(self) -> int:
        """Free bytes an attempt needs to start (min_free_bytes, or the session's disk budget plus the reserve)."""
        return self.limits.disk_bytes + RESERVE_BYTES if self.min_free_bytes is None else self.min_free_bytes

    def effort_via(self) -> str | None:
        """How the reasoning effort asked reaches the server, as the run says at its start and its manifest keeps
        (None: none asked). pi's model settings for these servers send none (sandbox/agents/pi.py COMPAT), so for
        pi the proxy adds it: said plainly, since pi's own record of its requests will not show it."""
        if not self.conds or not self.conds[0].reasoning_effort:
            return None
        if self.agent == "pi":
            return "added by kbench's proxy to every request pi makes (pi itself sends none to these servers)"
        return f"sent with every request the {'builtin agent' if self.agent == 'builtin' else 'harness'} makes"

    def settings(self) -> dict:
        """Every setting, for the manifest: no key."""
        return {
            "run_id": self.run_id, "model": self.model, "url": self.url, "agent": self.agent,
            "tool_format": self.tool_format if self.agent == "builtin" else None,
            "conditions": [asdict(c) for c in self.conds], "tasks": [t.id for t in self.tasks],
            "sampling": self.conds[0].sampling_label() if self.conds else None, "endpoint": dict(self.endpoint),
            "reasoning_effort": self.conds[0].effort_label() if self.conds else None,
            "reasoning_effort_via": self.effort_via(),
            "seeds": self.seed_list or self.seeds, "workers": self.workers, "server_slots": self.server_slots,
            "timeout_s": self.timeout_s, "latency_budget_s": self.latency_budget_s,
            "keep_work": self.keep_work, "defer_grading": self.defer_grading, "api_key_set": bool(self.api_key),
            "limits": asdict(self.limits), "isolation": self.isolation.resolve(),
            # each session runs as its own uid of this range (sandbox/isolation/uids.py)
            "sandbox_uid": f"{uids.pool().uids[0]}-{uids.pool().uids[-1]}" if self.isolation.drops_uid else None,
        }


@dataclass(frozen=True)
class Attempt:
    cond: Condition
    task: Any  # a unit of the run's kind: a task_defs Task or a gpu KernelTask
    seed: int

    @cached_property  # asked a dozen times an attempt by the run loop
    def key(self) -> str:
        return f"{self.cond.name}/{self.task.id}/s{self.seed}"


def plan(spec: RunSpec) -> list[Attempt]:
    """Seed 1 of every task (and condition) before seed 2."""
    seeds = spec.seed_list or range(1, spec.seeds + 1)
    return [Attempt(c, t, s) for s in seeds for t in spec.tasks for c in spec.conds]


class RunConflict(ValueError):
    pass


def write_manifest(spec: RunSpec, kind: WorkKind, run_dir: Path, pi: str | None) -> dict:
    path = run_dir / "manifest.json"
    manifest = {
        "run_id": spec.run_id,
        "settings": {**spec.settings(), "server_queue": server_queue_of(kind) if spec.server_slots else None},
        "suite": {"name": kind.name, "fingerprint": kind.fingerprint, "tasks": len(kind.units),
                  "graded": "later" if spec.defer_grading else "in the run"},
        "versions": environment_versions(pi),
        "gpus": gpus(),
        "server": describe_server(spec.url, spec.api_key),
        "endpoint": endpoint_record(spec.url, spec.api_key, spec.endpoint),
    }
    if path.exists():
        old = json.loads(path.read_text())
        # a run made before sampling was recorded used the server's defaults
        old["settings"].setdefault("sampling", "server default")
        for key, what in (("model", "model"), ("agent", "agent"), ("url", "server URL"), ("sampling", "sampling")):
            if old["settings"].get(key) != manifest["settings"][key]:
                raise RunConflict(f"run {spec.run_id!r} was started with {what} {old['settings'].get(key)!r}, "
                                  f"not {manifest['settings'][key]!r}; choose a new RUNID or the same settings")
        if old["suite"]["fingerprint"] != kind.fingerprint:
            raise RunConflict(f"run {spec.run_id!r} was started on another version of the suite "
                              f"({old['suite']['fingerprint'][:16]}); its results would mix; choose a new RUNID")
        manifest["resumed"] = old.get("resumed", []) + [time.strftime("%Y-%m-%dT%H:%M:%S")]
        manifest["created"] = old.get("created")
    else:
        manifest["created"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    write_json_atomic(path, manifest)
    return manifest


def server_queue_of(kind: WorkKind) -> int:
    """Requests let wait in the server's queue beyond its slots: for the chat-only kinds only (slots.py)."""
    return 0 if kind.runs_agent else CHAT_QUEUE


def server_slots_of(spec: RunSpec, kind: WorkKind) -> ServerSlots | None:
    """The cross-run limit on sessions at once for the spec's server, if there is one."""
    n = slot_capacity(spec.server_slots, spec.url, spec.api_key)
    return ServerSlots(spec.url, n, spec.slots_root, queue=server_queue_of(kind)) if n else None


API_AGENT = "api"  # the agent name of runs whose kind asks the server itself (sandbox/engine/chat.py)


def check_agent(spec: RunSpec, kind: WorkKind) -> None:
    """A chat-only kind runs with agent `api` and an agent kind never does: the manifest and the store say which."""
    if kind.runs_agent and spec.agent == API_AGENT:
        raise ValueError(f"{kind.name} is done by an agent: choose --agent pi or builtin, not {API_AGENT!r}")
    if not kind.runs_agent and spec.agent != API_AGENT:
        raise ValueError(f"{kind.name} asks the server directly, without an agent: its runs use agent "
                         f"{API_AGENT!r}, not {spec.agent!r}")


@contextlib.contextmanager
def open_agent(spec: RunSpec, run_dir: Path):
    """The agent a run uses, with what it needs while it lives (pi: the proxy to the server, its config; api: the
    client chat-only kinds ask through)."""
    if spec.agent == API_AGENT:
        client = ChatClient(spec.url, spec.model, spec.api_key)
        try:
            yield client
        finally:
            client.close()
    elif spec.agent == "builtin":
        yield BuiltinAgent(spec.url, spec.model, api_key=spec.api_key or "none", tool_format=spec.tool_format)  # type: ignore[arg-type]
    elif spec.agent == "pi":
        modules = node_modules_of(spec.pi_path)
        agent_dir = write_pi_config(Path(run_dir) / "pi-agent", spec.url, spec.model, spec.conds)
        # pi reaches the server only through the proxy: it holds the key and judges every reply
        with ServerProxy(spec.url, spec.api_key) as proxy:
            yield PiAgent(proxy, spec.model, agent_dir, modules)
    else:
        raise ValueError(f"--agent must be pi, builtin or {API_AGENT}, not {spec.agent!r}")
