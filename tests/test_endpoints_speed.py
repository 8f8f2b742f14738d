"""Endpoints as named things with their hardware, speed measured on the wire, sampling sent and kept apart.

Two scripted servers stand in for a CPU box and a big GPU: each is added under a name with its hardware class and
a set speed (time to first token, tokens per second). Runs against them are timed per request by the agent's own
client (builtin), by the proxy pi talks through, and by the chat-only kinds; the requests table must show what was
set, and the board must rank each class apart. A paced server can only be slower than set, never faster, so load
on this machine moves the figures up from the set ones; the 10% the issue asks for is what the test allows.
"""

import json
import statistics

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_data import aggregates
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

# Lateness under load is a few tens of milliseconds whatever the setting, so the set times are long enough for 10%
# to hold beside two busy cores (one agent at a time: three at once in this process add their own waits). Lateness
# adds to the time to first token rather than scaling with it, so that bound also allows LATE_S on top: a fresh
# clone's make test beside two hogs once measured 0.331 s for 0.3 s.
LATE_S = 0.05
CPU = {"ttft_s": 0.6, "token_rate": 100.0}
GPU = {"ttft_s": 0.3, "token_rate": 250.0}
TASKS = "fizz,clamp,anagram"


def run(args: list[str], tmp_path, db) -> None:
    assert main(["run", *args, "--agent", "builtin", "--conds", "base", "--workers", "1", "--runs",
                 str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(db)]) == 0


def speed_of(store: ResultsStore, endpoint: str) -> tuple[float, float]:
    """The endpoint's median time to first token and its generation rate over every token it sent."""
    _, rows = store.query("SELECT ttft_s, gen_s, completion_tokens FROM requests WHERE endpoint = ?", [endpoint])
    ttft = statistics.median(r[0] for r in rows if r[0] is not None)
    timed = [r for r in rows if r[1] and r[2] > 1]
    return ttft, sum(r[2] - 1 for r in timed) / sum(r[1] for r in timed)


@pytest.fixture(scope="module")
def two_endpoints(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("endpoints")
    db = tmp_path / "r.duckdb"
    with ScriptedServer("oracle", port=0, slots=3, **CPU) as cpu, \
            ScriptedServer("oracle", port=0, slots=3, **GPU) as gpu, \
            ScriptedServer("null", port=0, **CPU) as cpu_null, ScriptedServer("null", port=0, **GPU) as gpu_null:
        for name, srv, cls, hw in (("laptop", cpu, "cpu", "a 4-core laptop"), ("laptop-null", cpu_null, "cpu", "same"),
                                   ("h100", gpu, "high-gpu", "1x H100 80 GB"),
                                   ("h100-null", gpu_null, "high-gpu", "same")):
            assert main(["endpoints", "add", name, srv.url, "--hardware-class", cls, "--hardware", hw,
                         "--db", str(db)]) == 0
        for name, model in (("laptop", cpu.model_id), ("laptop-null", cpu_null.model_id), ("h100", gpu.model_id),
                            ("h100-null", gpu_null.model_id)):
            run([f"on-{name}", "--model", model, "--endpoint", name, "--tasks", TASKS], tmp_path, db)
    return tmp_path, ResultsStore(db)


def test_measured_speed_is_within_ten_percent_of_the_set_speed(two_endpoints):
    _, store = two_endpoints
    for name, want in (("laptop", CPU), ("h100", GPU)):
        ttft, rate = speed_of(store, name)
        assert want["ttft_s"] <= ttft <= want["ttft_s"] * 1.1 + LATE_S, (name, ttft)
        assert abs(rate - want["token_rate"]) <= 0.1 * want["token_rate"], (name, rate)
    # per attempt: its requests, their median time to first token and the pooled rate, beside the outcome
    _, rows = store.query("SELECT requests, ttft_s, gen_tok_s FROM attempts WHERE endpoint = 'laptop'")
    assert rows and all(n >= 1 and t >= CPU["ttft_s"] and g > 0 for n, t, g in rows)


def test_each_hardware_class_is_a_board_with_its_own_tiers_and_headline(two_endpoints):
    tmp_path, store = two_endpoints
    agg = aggregates(store, n_boot=300)
    boards = {}
    for g in agg["groups"]:
        t = agg["tiers"][g["key"]]
        boards.setdefault(t["board"], {})[g["server"]] = (t["tier"], t["headline"], g["engine"], g["hardware"])
    assert boards == {
        "cpu | builtin | base": {"laptop": (1, "usability", "kbench scripted", "a 4-core laptop"),
                                 "laptop-null": (2, "usability", "kbench scripted", "same")},
        "high-gpu | builtin | base": {"h100": (1, "pass@1", "kbench scripted", "1x H100 80 GB"),
                                      "h100-null": (2, "pass@1", "kbench scripted", "same")}}
    index = build_board(store, tmp_path / "board", n_boot=300).read_text()
    assert ">cpu | builtin | base<" in index and ">high-gpu | builtin | base<" in index
    assert "127.0.0.1" not in index  # endpoints by name, never by a port
    speed = (tmp_path / "board" / "speed.html").read_text()
    assert all(f">{name}<" in speed for name in ("laptop", "h100")) and "p10 / p50 / p90" in speed
    model_page = next((tmp_path / "board" / "model").glob("scripted-oracle*.html")).read_text()
    assert "<b>laptop</b> (kbench scripted, unknown, cpu: a 4-core laptop)" in model_page
    assert "<b>h100</b>" in model_page


def test_endpoints_list_and_a_run_against_an_unknown_name(two_endpoints, capsys):
    where, store = two_endpoints
    assert main(["endpoints", "list", "--db", str(store.path)]) == 0
    out = capsys.readouterr().out
    assert "laptop" in out and "high-gpu" in out and "kbench scripted" in out
    # the manifest keeps the description, with what was declared and what the server said
    manifest = json.loads((where / "runs" / "on-h100" / "manifest.json").read_text())
    e = manifest["endpoint"]
    assert (e["name"], e["hardware_class"], e["engine"], e["slots"]) == ("h100", "high-gpu", "kbench scripted", 3)
    assert e["declared"] == ["hardware", "hardware_class"] and e["guessed"] == []
    assert main(["run", "x", "--model", "m", "--endpoint", "nowhere", "--db", str(store.path)]) == 2
    assert "--endpoint nowhere: no such endpoint; add it with `kbench endpoints add nowhere URL`" in \
        capsys.readouterr().err


def test_pi_is_timed_through_its_proxy(tmp_path):
    db = tmp_path / "r.duckdb"
    with ScriptedServer("oracle", port=0, **CPU) as srv:
        assert main(["run", "pi-timed", "--model", srv.model_id, "--url", srv.url, "--agent", "pi", "--conds", "base",
                     "--tasks", "fizz", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(db)]) == 0
    _, rows = ResultsStore(db).query("SELECT ttft_s, total_s, completion_tokens FROM requests WHERE agent = 'pi'")
    assert len(rows) >= 2
    # the first token's time, not the whole reply's: never before the server's set delay, and before the reply ends
    # when more tokens follow it. How close it comes to the set delay moves with the machine's load: that figure is
    # bench/wire_overhead.py's, not a test's.
    assert all(CPU["ttft_s"] <= ttft for ttft, _, _ in rows)
    assert all(ttft < total for ttft, total, tokens in rows if tokens > 1)


def test_sampling_is_sent_by_every_path_and_is_part_of_a_rows_identity(tmp_path, capsys):
    db = tmp_path / "r.duckdb"
    common = ["--conds", "base", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"), "--db", str(db)]
    with ScriptedServer("oracle", port=0) as srv:
        base = ["--model", srv.model_id, "--url", srv.url, "--tasks", "fizz", *common]
        assert main(["run", "plain", "--agent", "builtin", *base]) == 0
        assert srv.sampling_seen and all(s == {} for s in srv.sampling_seen)  # nothing set: the server's defaults
        sampled = ["--temperature", "0.2", "--top-p", "0.9", "--seed", "40"]
        for agent in ("builtin", "pi"):
            srv.sampling_seen.clear()
            assert main(["run", f"sampled-{agent}", "--agent", agent, "--seeds", "2", *sampled, *base]) == 0
            # attempt k of the task sends seed 40 + k
            assert {s["seed"] for s in srv.sampling_seen} == {41, 42}, agent
            assert all(s["temperature"] == 0.2 and s["top_p"] == 0.9 for s in srv.sampling_seen), agent
        srv.sampling_seen.clear()
        assert main(["textjobs", str(tmp_path / "t.json"), "--url", srv.url, "--only", "tickets", "--limit", "2",
                     "--temperature", "0", *common[2:]]) == 0
        assert srv.sampling_seen and all(s == {"temperature": 0} for s in srv.sampling_seen)
        # resuming a run with other sampling would mix two kinds of rows under one run: refused
        again = ["run", "sampled-builtin", "--agent", "builtin", "--seeds", "2", "--temperature", "0.7", *base]
        assert main(again) == 2
        assert "started with sampling" in capsys.readouterr().err
    rows = {(g["agent"], g["sampling"]) for g in aggregates(ResultsStore(db), n_boot=200)["groups"]}
    assert rows == {("builtin", "server default"), ("builtin", "temperature 0.2, top_p 0.9, seed 40+k"),
                    ("pi", "temperature 0.2, top_p 0.9, seed 40+k")}
