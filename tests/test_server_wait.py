"""A server that does not answer when a run starts is reported at once, with how long the wait has lasted, and the
run stops with what the probe saw instead of waiting silently."""

import socket

from kbench_dagster.cli import main
from sandbox.servers.probe import wait_for_server


def dead_url() -> str:
    with socket.socket() as s:  # a port nobody listens on: bound, then closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_the_first_failed_probe_is_said_before_any_wait_then_every_ten_seconds():
    now = [0.0]
    events = []
    up = wait_for_server(dead_url(), timeout_s=25, poll_s=1.0, clock=lambda: now[0],
                         sleep=lambda s: (events.append(("sleep", s)), now.__setitem__(0, now[0] + s)),
                         on_wait=lambda waited, problem: events.append(("say", waited, problem)))
    assert up is False
    said = [e for e in events if e[0] == "say"]
    assert events[0] == ("say", 0.0, "connection refused")  # before the first sleep
    assert [e[1] for e in said] == [0.0, 10.0, 20.0]
    assert sum(e[1] for e in events if e[0] == "sleep") == 25.0


def test_kbench_run_against_a_wrong_port_says_so_and_stops(tmp_path, capsys):
    url = dead_url()
    rc = main(["run", "r", "--model", "m", "--url", url, "--agent", "builtin", "--tasks", "fizz", "--conds", "base",
               "--server-wait", "1", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
               "--db", str(tmp_path / "k.duckdb")])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"waiting for the server at {url}: connection refused; start it or fix --url" in err
    assert f"error: the server at {url} did not answer for 1 s (connection refused): start it or fix --url" in err
    assert not list((tmp_path / "runs").glob("**/result.json"))
