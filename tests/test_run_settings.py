"""A run's settings are defined once (kbench_dagster/run_settings.py): `kbench run`'s options, the chat commands'
options and the Dagster agent resource all fill the same fields by name, with the same defaults."""

import pytest

from kbench_dagster.cli import build_parser
from kbench_dagster.commands.core import run_settings
from kbench_dagster.resources import AgentSettings
from kbench_dagster.run_settings import RunSettings, settings_of
from kbench_dagster.store import ResultsStore

OPTIONED = [n for n, f in RunSettings.model_fields.items() if (f.json_schema_extra or {}).get("flag")]


def _dests(argv: list[str]) -> dict:
    return vars(build_parser(argv[0]).parse_args(argv))


def test_every_setting_with_an_option_is_an_option_of_kbench_run_under_its_own_name():
    args = _dests(["run", "r1", "--model", "m"])
    assert set(OPTIONED) <= set(args)
    assert len(OPTIONED) >= 30


def test_kbench_runs_options_become_the_settings_and_defaults_come_from_the_fields(tmp_path):
    args = build_parser("run").parse_args([
        "--suite", "kbench", "run", "r1", "--model", "m", "--seeds", "3", "--timeout", "45", "--runs", "rr",
        "--work", str(tmp_path / "w"), "--pi", "/opt/pi", "--server-wait", "30", "--latency-budget", "0",
        "--keep-work", "--agent", "builtin", "--tool-format", "text", "--temperature", "0.5", "--seed", "7",
        "--hardware-class", "cpu", "--disk-limit-gb", "1.5"])
    got = run_settings(args, ResultsStore(tmp_path / "db.duckdb"))
    assert (got.seeds, got.timeout_s, got.runs_root, got.pi_path, got.server_down_stop_s, got.latency_budget_s) == (
        [1, 2, 3], 45.0, "rr", "/opt/pi", 30.0, 0.0)
    assert (got.keep_work, got.agent, got.tool_format, got.temperature, got.sampling_seed, got.hardware_class) == (
        True, "builtin", "text", 0.5, 7, "cpu")
    assert got.disk_limit_gb == 1.5
    defaults = run_settings(build_parser("run").parse_args(["run", "r2", "--model", "m"]),
                            ResultsStore(tmp_path / "db.duckdb"))
    assert defaults.model_dump(exclude={"run_id"}) == RunSettings(run_id="r2", model="m").model_dump(
        exclude={"run_id"})


def test_a_chat_command_takes_the_same_options_with_its_own_defaults_and_older_names():
    trials = _dests(["trials", "run", "out.json", "--parallel", "3", "--samples", "2"])
    assert (trials["workers"], trials["seeds"], trials["timeout_s"], trials["conds"]) == (3, 2, 120.0, "base")
    textjobs = _dests(["textjobs", "out.json", "--workers", "2"])
    assert (textjobs["workers"], textjobs["timeout_s"]) == (2, 300.0)
    assert _dests(["capability", "run", "out.json"])["seeds"] == 3


def test_a_bad_option_names_the_setting():
    with pytest.raises(ValueError, match="seeds.*at least 1"):
        settings_of(run_id="r", model="m", seeds=0)
    with pytest.raises(ValueError, match="timeout_s"):
        settings_of(run_id="r", model="m", timeout_s=-1)


def test_the_dagster_agent_resource_holds_the_same_settings_with_the_same_defaults():
    held = AgentSettings().run_fields()
    shared = {"timeout_s", "workers", "runs_root", "tool_format", "rss_limit_gb", "max_procs", "disk_limit_gb"}
    assert shared <= held.keys()
    for name, value in held.items():
        if name == "agent":  # the resource names the agent kinds' agent; a chat kind's cell asks with api
            continue
        assert value == RunSettings.model_fields[name].default, name
    assert AgentSettings(pi_path="", timeout_s=5).run_fields()["pi_path"] is None
