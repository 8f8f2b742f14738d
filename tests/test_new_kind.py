"""A kind defined in one file under tests/ and registered in one line runs through the one engine with no other
file edited: `kbench run --suite` with the scripted oracle (every unit passes) and null (none), rows in a table of
its own, requeue then infra when the server breaks, a second run that finds everything done, report and collect, a
board page in the menu, a regrade after its grading changed, and a Dagster cell asset giving the CLI's rows: for a
chat kind and for an agent kind."""

import contextlib
import json

import pytest
import toy_agent_kind
import toy_chat_kind

from assets.runs import agent_runs
from kbench_dagster.cli import main
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore
from sandbox.engine import registry
from sandbox.servers.scripted import ScriptedServer


@contextlib.contextmanager
def registered(name: str, module: str):
    registry.register(name, module)  # the one line a new kind needs
    yield
    registry._MODULES.pop(name)  # the other tests of this worker never see it
    registry._EXTERNAL.discard(name)


@pytest.fixture
def toy_chat():
    with registered("toy-chat", "toy_chat_kind"):
        yield


@pytest.fixture
def toy_agent():
    with registered("toy-agent", "toy_agent_kind"):
        yield


def run(tmp_path, srv: ScriptedServer, run_id: str, *extra: str, suite: str = "toy-chat", model: str = "") -> int:
    return main(["--suite", suite, "run", run_id, *extra, "--model", model or f"scripted-{srv.persona.name}",
                 "--url", srv.url,
                 "--conds", "base", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                 "--db", str(tmp_path / "toy.duckdb")])


def outcomes(tmp_path, run_id: str) -> dict[str, tuple]:
    _, rows = ResultsStore(tmp_path / "toy.duckdb").query(
        "SELECT item, outcome, answer, expected FROM toy_chat_results WHERE run_id = ? ORDER BY item", [run_id])
    return {r[0]: r[1:] for r in rows}


def test_a_chat_kind_in_one_file_runs_stores_resumes_and_regrades(toy_chat, tmp_path, capsys, monkeypatch):
    with ScriptedServer("oracle", suite="toy-chat", port=0) as srv:
        assert run(tmp_path, srv, "toy-oracle") == 0
        got = outcomes(tmp_path, "toy-oracle")
        assert set(got) == set(toy_chat_kind.SUMS) and {o for o, _, _ in got.values()} == {"pass"}
        assert got["carry"] == ("pass", "105", 105)
        capsys.readouterr()
        assert run(tmp_path, srv, "toy-oracle") == 0  # resumed: nothing left to ask
        assert "ran 0, already done 4" in capsys.readouterr().err and len(outcomes(tmp_path, "toy-oracle")) == 4
    with ScriptedServer("null", suite="toy-chat", port=0) as srv:
        assert run(tmp_path, srv, "toy-null") == 0
    assert {o for o, _, _ in outcomes(tmp_path, "toy-null").values()} == {"wrong"}
    store = ResultsStore(tmp_path / "toy.duckdb")
    assert store.query("SELECT count(*) FROM attempts")[1] == [(0,)]  # never mixed into the agent tasks' tables
    assert store.query("SELECT run_id, attempts FROM runs ORDER BY run_id")[1] == [("toy-null", 4), ("toy-oracle", 4)]
    index = build_board(store, tmp_path / "board")  # its own page, linked from every page's menu
    assert "<td class=l>scripted-oracle</td><td>4</td><td>4</td>" in (index.parent / "toy-chat.html").read_text()
    assert "<td class=l>scripted-null</td><td>0</td><td>4</td>" in (index.parent / "toy-chat.html").read_text()
    assert 'href="toy-chat.html">Toy sums</a>' in index.read_text()

    assert main(["report", "toy-oracle", "--runs", str(tmp_path / "runs")]) == 0
    assert "pass@1 100.0%" in capsys.readouterr().out
    assert main(["collect", "toy-oracle", "--runs", str(tmp_path / "runs")]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["results"] == 4

    # the grading changes (a sum is now expected to be one more): a regrade rewrites the kind's own rows
    monkeypatch.setitem(toy_chat_kind.SUMS, "small", (2, 4))
    assert main(["regrade", "toy-oracle", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                 "--db", str(tmp_path / "toy.duckdb")]) == 0
    assert "toy-oracle: regraded 4" in capsys.readouterr().out
    after = outcomes(tmp_path, "toy-oracle")
    assert after["small"] == ("wrong", "5", 6) and after["carry"] == ("pass", "105", 105)


@pytest.mark.parametrize("agent", ["builtin", "pi"])
def test_an_agent_kind_in_one_file_runs_in_the_sandbox_stores_resumes_and_regrades(toy_agent, tmp_path, agent,
                                                                                   capsys, monkeypatch):
    for persona in ("oracle", "null"):
        with ScriptedServer(persona, suite="toy-agent", port=0) as srv:
            assert run(tmp_path, srv, f"words-{persona}", "--agent", agent, suite="toy-agent") == 0
    _, rows = ResultsStore(tmp_path / "toy.duckdb").query(
        "SELECT run_id, task, outcome, answer, agent FROM toy_agent_results ORDER BY run_id, task")
    assert [r[:4] for r in rows] == [
        ("words-null", t, "nofile", None) for t in ("first", "second", "third")] + [
        ("words-oracle", t, "pass", toy_agent_kind.WORDS[t]) for t in ("first", "second", "third")]
    assert {r[4] for r in rows} == {agent}
    record = tmp_path / "runs" / "words-oracle" / "base" / "second" / "s1"
    assert (record / "workdir" / "answer.txt").read_text() == "harbour\n"
    with ScriptedServer("oracle", suite="toy-agent", port=0) as srv:  # resumed: another server, another run id
        assert run(tmp_path, srv, "words-again", "--agent", agent, suite="toy-agent") == 0
        capsys.readouterr()
        assert run(tmp_path, srv, "words-again", "--agent", agent, suite="toy-agent") == 0
        assert "ran 0, already done 3" in capsys.readouterr().err
    assert main(["report", "words-oracle", "--runs", str(tmp_path / "runs")]) == 0
    assert "pass@1 100.0%" in capsys.readouterr().out
    assert main(["collect", "words-null", "--runs", str(tmp_path / "runs")]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["results"] == 3
    index = build_board(ResultsStore(tmp_path / "toy.duckdb"), tmp_path / "board")  # its own page, in the menu
    shown = (index.parent / "toy-agent.html").read_text()
    assert f"<td class=l>scripted-oracle</td><td class=l>{agent}</td><td>6</td><td>6</td>" in shown
    assert f"<td class=l>scripted-null</td><td class=l>{agent}</td><td>0</td><td>3</td>" in shown
    assert 'href="toy-agent.html">Toy words</a>' in index.read_text()
    monkeypatch.setitem(toy_agent_kind.WORDS, "first", "lamp")  # its grading changes: a regrade sees it
    assert main(["regrade", "words-oracle", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                 "--db", str(tmp_path / "toy.duckdb")]) == 0
    _, regraded = ResultsStore(tmp_path / "toy.duckdb").query(
        "SELECT task, outcome, expected FROM toy_agent_results WHERE run_id = 'words-oracle' ORDER BY task")
    assert regraded == [("first", "wrong", "lamp"), ("second", "pass", "harbour"), ("third", "pass", "quartz")]


def test_a_kind_in_one_file_gets_a_dagster_cell_asset_with_the_cli_rows(toy_chat, tmp_path):
    from test_language_assets import _materialize, _rows

    from kbench_dagster.cells import kind_cell_asset
    from kbench_dagster.keys import model_key
    from kbench_dagster.service import partition_store_key

    asset = kind_cell_asset(registry.card("toy-chat"))
    assert asset.partitions_def is agent_runs.partitions_def  # partitioned like every other cell asset
    with ScriptedServer("oracle", suite="toy-chat", port=0) as srv:
        dagster_db = _materialize(tmp_path, srv, asset)
        assert main(["--suite", "toy-chat", "run", "toy-cli", "--model", srv.model_id, "--url", srv.url,
                     "--conds", "base", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(tmp_path / "cli.duckdb")]) == 0
    made_by_dagster = _rows(dagster_db, "toy_chat_results", "item")
    assert len(made_by_dagster) == 4 and {r["outcome"] for r in made_by_dagster} == {"pass"}
    assert made_by_dagster == _rows(tmp_path / "cli.duckdb", "toy_chat_results", "item")
    _, keys = ResultsStore(dagster_db).query("SELECT DISTINCT partition_key FROM toy_chat_results")
    assert keys == [(partition_store_key("api", model_key(srv.model_id, "scripted"), "base.s1", "toy-chat"),)]


def test_an_agent_kind_in_one_file_gets_a_dagster_cell_asset_with_the_cli_rows(toy_agent, tmp_path):
    from test_language_assets import _materialize, _rows

    from kbench_dagster.cells import kind_cell_asset

    asset = kind_cell_asset(registry.card("toy-agent"))
    assert asset.partitions_def is agent_runs.partitions_def
    with ScriptedServer("oracle", suite="toy-agent", port=0) as srv:
        dagster_db = _materialize(tmp_path, srv, asset)  # the configured agent: builtin
        assert main(["--suite", "toy-agent", "run", "words-cli", "--agent", "builtin", "--model", srv.model_id,
                     "--url", srv.url, "--conds", "base", "--runs", str(tmp_path / "runs"),
                     "--work", str(tmp_path / "work"), "--db", str(tmp_path / "cli.duckdb")]) == 0
    made_by_dagster = _rows(dagster_db, "toy_agent_results", "task")
    assert [(r["task"], r["outcome"], r["agent"]) for r in made_by_dagster] == [
        ("first", "pass", "builtin"), ("second", "pass", "builtin"), ("third", "pass", "builtin")]
    assert made_by_dagster == _rows(tmp_path / "cli.duckdb", "toy_agent_results", "task")


def test_kbench_kinds_brings_a_kind_kept_elsewhere_to_the_code_location_and_a_bad_entry_is_named():
    import os
    import subprocess
    import sys

    from conftest import REPO

    code = ("from kbench_dagster.definitions import defs; "
            "print(sorted(k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()))")
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'tests'}:{REPO}", "KBENCH_KINDS": "toy-chat=toy_chat_kind"}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "'toy_chat_results'" in out.stdout and "'trial_results'" in out.stdout
    env["KBENCH_KINDS"] = "toy-chat"
    bad = subprocess.run([sys.executable, "-m", "kbench_dagster.cli", "list"], env=env, cwd=REPO,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "KBENCH_KINDS: 'toy-chat' is not NAME=MODULE" in bad.stderr


def test_a_chat_kinds_attempts_cut_short_by_the_server_are_requeued_then_infra(toy_chat, tmp_path):
    from kbench_dagster.reporting.loaders import load_results

    with ScriptedServer("chaos", suite="toy-chat", port=0, chaos_delay=0.1) as srv:
        assert run(tmp_path, srv, "toy-chaos", "--tasks", "small,carry") == 0
        asked = srv.chat_requests
    results = load_results(tmp_path / "runs", "toy-chaos")
    assert sorted(r["task"] for r in results) == ["carry", "small"] and asked >= 6 * 2
    assert all(r["outcome"] == "infra" and r["requeues"] == 5 and r["infra_error"] for r in results)
    assert {o for o, _, _ in outcomes(tmp_path, "toy-chaos").values()} == {"infra"}  # never scored as the model's
    _, runs = ResultsStore(tmp_path / "toy.duckdb").query("SELECT attempts, infra_failures FROM runs")
    assert runs == [(2, 2)]


def test_an_agent_kinds_attempts_cut_short_by_the_server_are_requeued_then_infra(toy_agent, tmp_path):
    from kbench_dagster.reporting.loaders import load_results

    with ScriptedServer("chaos", suite="toy-agent", port=0, chaos_delay=0.1) as srv:
        assert run(tmp_path, srv, "words-chaos", "--agent", "builtin", "--tasks", "first", suite="toy-agent") == 0
    [result] = load_results(tmp_path / "runs", "words-chaos")
    assert result["outcome"] == "infra" and result["requeues"] == 5 and result["infra_error"]
    _, rows = ResultsStore(tmp_path / "toy.duckdb").query("SELECT outcome FROM toy_agent_results")
    assert rows == [("infra",)]  # never scored as the model's
