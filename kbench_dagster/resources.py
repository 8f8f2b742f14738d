"""Resources: small classes the assets get settings and outside systems from; each with a real and a fake."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from kbench_dagster.keys import check_endpoint_name
from kbench_dagster.parquet_store import open_store
from kbench_dagster.run_settings import RunSettings
from kbench_dagster.store import DEFAULT_DB, ResultsStore
from sandbox.engine.slots import slot_capacity
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS, GB
from sandbox.isolation.workdirs import default_work_root
from sandbox.servers.hardware import check_hardware_class
from sandbox.servers.probe import fetch_json
from task_defs import Suite, load_suite


class SuiteSource(dg.ConfigurableResource):
    """Where the task suites come from: names of the built-in suites, or folders."""

    suites: list[str] = ["kbench"]

    def load(self) -> list[Suite]:
        return [load_suite(s) for s in self.suites]

    def primary(self) -> Suite:
        return self.load()[0]


class SandboxSettings(dg.ConfigurableResource):
    """How sessions are isolated and where their work folders live (always outside the repository)."""

    isolation: str = "auto"
    work_root: str = ""
    validate_workers: int = 2

    def isolation_config(self) -> IsolationConfig:
        return IsolationConfig(mode=self.isolation)  # type: ignore[arg-type]

    def work_path(self) -> Path:
        return Path(self.work_root) if self.work_root else default_work_root()


class AgentSettings(dg.ConfigurableResource):
    """Which agent drives the model, how long a session may take, where run records go. A field named as a run
    setting (kbench_dagster/run_settings.py) is that setting, with its default (a test holds them equal). A kind's
    own settings (which units, how it asks) are its cell asset's run config, defined beside that asset."""

    agent: str = "pi"
    tool_format: str = "auto"
    timeout_s: float = 600.0
    workers: int = 1
    runs_root: str = "runs"
    tasks: str = ""  # the agent tasks' ids, categories or tiers; empty = the whole suite
    pi_path: str = ""  # a pi installation (a path inside its node_modules); empty = the pinned one
    keep_work: bool = False
    # asked of the model on every request of every cell, agent and chat kinds alike (default: none sent)
    reasoning_effort: str = "default"
    # the agent session's watchdog limits, as `kbench run` takes them
    rss_limit_gb: float = AGENT_LIMITS.rss_limit_bytes / GB
    max_procs: int = AGENT_LIMITS.max_procs
    disk_limit_gb: float = AGENT_LIMITS.disk_bytes / GB

    def run_fields(self) -> dict:
        """The run settings this resource holds, by name; an empty text is the setting left unset."""
        named = (n for n in type(self).model_fields if n in RunSettings.model_fields)
        return {n: (None if getattr(self, n) == "" else getattr(self, n)) for n in named}


class ResultsDB(dg.ConfigurableResource):
    """The DuckDB results store (a resource, not an IO manager: rows are written in short transactions)."""

    path: str = str(DEFAULT_DB)
    board_dir: str = str(DEFAULT_DB.parent / "board")  # where the `boards` asset writes the static site

    def store(self) -> ResultsStore:
        return open_store(self.path)


@dataclass(frozen=True)
class Endpoint:
    name: str
    url: str
    api_key: str | None
    slots: int | None  # None only before ModelEndpoints.get() has asked the server
    declared: dict = field(default_factory=dict)  # hardware, hardware_class, site as the owner states them


def parse_endpoints(spec: str) -> tuple[dict[str, str], dict[str, dict]]:
    """KBENCH_ENDPOINTS: "name=url[|class[|hardware[|site]]],..." -> (urls, declared per name)."""
    urls, declared = {}, {}
    for part in spec.split(","):
        if "=" not in part:
            continue
        name, _, rest = part.partition("=")
        url, *said = [p.strip() for p in rest.split("|")]
        name = check_endpoint_name(name.strip())
        urls[name] = url
        values = dict(zip(("hardware_class", "hardware", "site"), said))
        check_hardware_class(values.get("hardware_class") or None)
        declared[name] = {k: v for k, v in values.items() if v}
    return urls, declared


class ModelEndpoints(dg.ConfigurableResource):
    """The real OpenAI-compatible servers to benchmark: name, URL, key (through EnvVar), slots."""

    urls: dict[str, str] = {"local": "http://127.0.0.1:8093/v1"}
    api_key: str | None = None
    # requests each server takes at once; None: what the server reports at /props (llama.cpp's total_slots), else 1
    slots: int | None = None
    # per endpoint name: hardware, hardware_class (sandbox/servers/hardware.py), site; boards rank within a class
    declared: dict[str, dict[str, str]] = {}

    def endpoints(self) -> list[Endpoint]:
        """Every configured endpoint; slots stay None where the server is to be asked (get() asks)."""
        return [Endpoint(name, url, self.api_key, self.slots, self.declared.get(name, {}))
                for name, url in self.urls.items()]

    def get(self, name: str) -> Endpoint:
        """One endpoint with its slots settled: the configured count, else the server's own, else 1."""
        for e in self.endpoints():
            if e.name == name:
                return e if e.slots is not None else replace(e, slots=slot_capacity(None, e.url, e.api_key))
        raise KeyError(f"no endpoint {name!r}; configured: {', '.join(self.urls)}")

    def list_models(self, name: str) -> list[str]:
        data = fetch_json(self.get(name).url.rstrip("/") + "/models", self.api_key)
        return [m["id"] for m in data.get("data", [])]


def endpoints_from_env() -> ModelEndpoints:
    """KBENCH_ENDPOINTS="name=url[|class[|hardware[|site]]],..." (default local=http://127.0.0.1:8093/v1); key
    from KBENCH_API_KEY; KBENCH_SLOTS, else each server's own count at /props, else 1."""
    urls, declared = parse_endpoints(os.environ.get("KBENCH_ENDPOINTS", "local=http://127.0.0.1:8093/v1"))
    return ModelEndpoints(urls=urls, declared=declared,
                          api_key=dg.EnvVar("KBENCH_API_KEY") if os.environ.get("KBENCH_API_KEY") else None,
                          slots=int(os.environ["KBENCH_SLOTS"]) if os.environ.get("KBENCH_SLOTS") else None)


class ScriptedEndpoints(ModelEndpoints):
    """The fake: a scripted server (sandbox.servers.scripted) started in this process on first use."""

    persona: str = "oracle"
    suite: str = "kbench"  # whose answers the persona knows: kbench, textjobs, breakdown, trials
    latency: float = 0.0
    ttft_s: float = 0.0  # seconds to the first token of each reply (after latency)
    token_rate: float = 0.0  # tokens per second after the first (0: no pacing)
    model_ids: list[str] = []  # extra model ids /v1/models should list (the sensor sees them as releases)
    _server: object = PrivateAttr(default=None)

    def endpoints(self) -> list[Endpoint]:
        if self._server is None:
            from sandbox.servers.scripted import ScriptedServer

            self._server = ScriptedServer(persona=self.persona, suite=self.suite, port=0, latency=self.latency,
                                          ttft_s=self.ttft_s, token_rate=self.token_rate).start()
        return [Endpoint("scripted", self._server.url, None, self.slots, self.declared.get("scripted", {}))]

    def list_models(self, name: str) -> list[str]:
        return super().list_models(name) + list(self.model_ids)
