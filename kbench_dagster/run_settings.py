"""A run's settings, defined once: what each one means, its type, default and bounds, and the command-line option
that sets it. `kbench run` (and the other commands that start runs) make their options from these fields, the
Dagster cells fill the same fields from their resources by name, and the service makes the run spec from them,
so an option is never restated field by field on the way. Never the API key (the environment's alone)."""

from __future__ import annotations

import argparse
import re
import types
import typing
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sandbox.engine.attempt_folders import check_run_id
from sandbox.engine.conditions import ReasoningEffort
from sandbox.isolation.limits import AGENT_LIMITS, GB
from sandbox.servers.hardware import HardwareClass

DEFAULT_URL = "http://127.0.0.1:8093/v1"


def option(flag: str | None, help: str, metavar: str | None = None, aliases: tuple[str, ...] = (),  # noqa: A002
           **field):
    """A field with the command-line option that sets it (None: no option of its own) and the option's other
    names (the chat commands' older words for the same setting)."""
    return Field(json_schema_extra={"flag": flag, "metavar": metavar, "aliases": list(aliases)}, description=help,
                 **field)


class RunSettings(BaseModel):
    """Everything that decides what a run does, as a user states it."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = option(None, "the run's name: its records' folder and its key in the store")
    model: str = option("--model", "model id as the server knows it (the chat commands: default the server's "
                        "first in /v1/models)", min_length=1)
    url: str = option("--url", f"OpenAI-compatible base URL (default: --endpoint's, else {DEFAULT_URL})",
                      default=DEFAULT_URL)
    agent: Literal["pi", "builtin", "api"] | None = option(
        "--agent", "pi (the default), builtin, or api: a chat kind (--suite textjobs, trials, ...) asks the server "
        "itself, and takes api without this option", default=None)
    tool_format: Literal["native", "text", "auto", "constrained"] = option(
        "--tool-format", "builtin: accept native tool calls, calls written as text, or both (default); constrained: "
        "no tools field, every reply a JSON action the server's grammar enforces", default="auto")
    suite: str = option(None, "a suite name or folder, or a kind's name (kernels, textjobs, trials, ...)",
                        default="kbench")
    tasks: str | None = option("--tasks", "task ids, categories or tiers, comma-separated (default: all)",
                               default=None)
    conds: str | None = option("--conds", "conditions, comma-separated (default base,think,base8k)", default=None)
    thinking: Literal["off", "medium"] | None = option("--thinking", "the thinking level sent", default=None)
    max_tokens: int | None = option("--max-tokens", "the reply's token limit sent", metavar="N", default=None, ge=1)
    extension: str | None = option("--extension", "a pi extension, for the ext and ext_think conditions",
                                   default=None)
    seeds: list[int] = option("--seeds", "attempts of each task and condition: seeds 1..N", metavar="N",
                              aliases=("--samples",), default=[1])
    workers: int = option("--workers", "attempts at once (the server's slots still bound them)", metavar="N",
                          aliases=("--parallel",), default=1, ge=1)
    timeout_s: float = option("--timeout", "seconds per agent session or chat exchange; past it the attempt is "
                              "timeout", metavar="S", default=600.0, gt=0)
    runs_root: str = option("--runs", "where records go (default ./runs)", metavar="DIR", default="runs")
    work_root: str | None = option("--work", "work root (default ~/kbench-work or $KBENCH_WORK)", metavar="DIR",
                                   default=None)
    pi_path: str | None = option("--pi", "a pi installation (a path inside its node_modules); default the pinned one",
                                 metavar="PATH", default=None)
    keep_work: bool = option("--keep-work", "keep each attempt's work folder", default=False)
    defer_grading: bool = option("--defer-grading", "record the agent's work now and grade it later with `kbench "
                                 "regrade` (the report shows such attempts as pending until then)", default=False)
    isolation: Literal["auto", "bwrap", "docker", "none"] = option("--isolation", "how sessions are isolated",
                                                                   default="auto")
    server_slots: int | None = option(
        "--server-slots", "sessions at once against this server, counted across every kbench run and Dagster run on "
        "this machine (default: what the server reports at /props, e.g. llama.cpp's --parallel; 0: no limit beyond "
        "--workers)", metavar="N", default=None, ge=0)
    server_down_stop_s: float = option(
        "--server-wait", "how long the run waits for a server that does not answer before it stops (default 600)",
        metavar="S", default=600.0, gt=0)
    latency_budget_s: float | None = option(
        "--latency-budget", "agent seconds per attempt inside which a pass counts as usable (default by tier: easy "
        "120, medium 300, hard 600, terminal 300; 0: none); a pass over it stays a pass in pass@1", metavar="S",
        default=None, ge=0)
    # sampling sent with every request (None: the server's default); attempt k of a task sends sampling_seed + k
    temperature: float | None = option("--temperature", "sent with every request (default: the server's)",
                                       metavar="T", default=None, ge=0, le=2)
    top_p: float | None = option("--top-p", "sent with every request (default: the server's)", metavar="P",
                                 default=None, gt=0, le=1)
    sampling_seed: int | None = option("--seed", "sampling seed: attempt k of a task sends N + k (default: the "
                                       "server's)", metavar="N", default=None, ge=0)
    # asked of the model on every request beside the condition's thinking switch; "default" sends nothing
    reasoning_effort: ReasoningEffort = option(
        "--reasoning-effort", "reasoning_effort sent with every request (pi's through kbench's proxy); default sends "
        "none, leaving the server's own", default="default")
    # the endpoint as its owner declares it (sandbox/servers/hardware.py); the run adds what the server says
    endpoint: str | None = option("--endpoint", "an endpoint from `kbench endpoints list` (its URL and hardware)",
                                  metavar="NAME", default=None)
    hardware: str | None = option("--hardware", "what the server runs on, e.g. 'RTX 4090, 24 GB'", metavar="TEXT",
                                  default=None)
    hardware_class: HardwareClass | None = option(
        "--hardware-class", "boards rank within a class (default: declared with the endpoint, else this machine's "
        "for a server on 127.0.0.1, else unknown)", default=None)
    site: str | None = option("--site", "where the server is (a lab, a cloud region)", metavar="TEXT", default=None)
    rss_limit_gb: float = option("--rss-limit-gb", "memory watchdog: what one session may hold in all",
                                 metavar="GB", default=AGENT_LIMITS.rss_limit_bytes / GB, gt=0)
    max_procs: int = option("--max-procs", "process watchdog: kill the session above this many tasks, threads "
                            "counted", metavar="N", default=AGENT_LIMITS.max_procs, ge=1)
    disk_limit_gb: float = option(
        "--disk-limit-gb", "disk watchdog: what one session may hold in its folders; an attempt starts only with "
        "this plus 256 MB free on the work and runs disks", metavar="GB", default=AGENT_LIMITS.disk_bytes / GB, gt=0)

    @field_validator("run_id")
    @classmethod
    def _run_id(cls, v: str) -> str:
        return check_run_id(v)

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, v):
        if isinstance(v, int) and not isinstance(v, bool):  # a count, as --seeds N gives it
            if v < 1:
                raise ValueError("--seeds must be at least 1")
            return list(range(1, v + 1))
        if not v or any(s < 1 for s in v) or len(set(v)) != len(v):
            raise ValueError("seeds must be distinct numbers from 1")
        return v


def settings_of(**fields) -> RunSettings:
    """RunSettings from keyword values; a bad value is a ValueError that names the setting and what it takes."""
    try:
        return RunSettings(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"run settings: {problems}") from None


def _plain(annotation) -> tuple[type | None, tuple | None]:
    """The argparse type and choices of a field's annotation (Optional stripped)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = args[0]
    if typing.get_origin(annotation) is Literal:
        return None, typing.get_args(annotation)
    if typing.get_origin(annotation) is list:
        return int, None  # seeds: a count on the command line
    return annotation, None


def add_run_options(parser: argparse.ArgumentParser, *names: str, **defaults) -> None:
    """The options of these settings, as the fields define them (dest: the field's name). An option not given is
    None and the field's default applies, unless `defaults` gives the command's own (a chat command's conditions)."""
    for name in names:
        f = RunSettings.model_fields[name]
        extra = f.json_schema_extra or {}
        if not extra.get("flag"):
            raise KeyError(f"the setting {name} has no option of its own")
        flags = [extra["flag"], *extra.get("aliases", [])]
        kind, choices = _plain(f.annotation)
        if kind is bool:
            parser.add_argument(*flags, dest=name, action="store_true", help=f.description)
            continue
        shown = defaults.get(name, f.default)
        said = f.description
        if name in defaults:  # the command's own default replaces the one the description names
            said = re.sub(r" \(default[^)]*\)", "", said)
        if shown not in (None, [1]) and "default" not in said:
            said += f" (default {shown:g})" if isinstance(shown, float) else f" (default {shown})"
        # None when not given, so the field's default applies, and the endpoint's URL can tell a --url given from
        # one not given
        parser.add_argument(*flags, dest=name, type=kind, choices=choices, metavar=extra.get("metavar"), help=said,
                            default=defaults.get(name), required=f.is_required() and name not in defaults)


def from_args(args: argparse.Namespace, **fields) -> dict:
    """The settings the parsed options hold (those given and their defaults), beside `fields`."""
    given = {n: getattr(args, n) for n in RunSettings.model_fields if n in vars(args)}
    return {**{n: v for n, v in given.items() if v is not None}, **fields}


def setting(args: argparse.Namespace, name: str):
    """One setting as the parsed options give it, else the field's default."""
    given = getattr(args, name, None)
    return RunSettings.model_fields[name].default if given is None else given
