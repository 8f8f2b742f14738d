"""The tool-use trials through the one loop (a chat-only kind): the scripted oracle passes every trial and the null
persona (a bare `{}`) none, over the whole suite; rows land in trial_results; the tools are offered in an order
shuffled by the attempt's seed; calls written in the text are read and recorded as such."""

import json

from kbench_dagster import service
from kbench_dagster.cli import main
from kbench_dagster.run_settings import settings_of
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.trials import ToolTrials, answer_of, request_of
from sandbox.servers.scripted import ScriptedServer


def run_suite(persona: str, tmp_path) -> tuple[list[dict], ResultsStore]:
    results = []
    store = ResultsStore(tmp_path / f"{persona}.duckdb")
    with ScriptedServer(persona, suite="trials", port=0) as srv:
        settings = settings_of(run_id=f"trials-{persona}", model=srv.model_id, url=srv.url, agent="api",
                               suite="trials", conds="base", workers=4, runs_root=str(tmp_path / "runs"),
                               work_root=str(tmp_path / "work"))
        service.run_and_store(service.plan_run(settings), store, on_result=results.append)
    return results, store


def test_the_oracle_passes_every_trial_and_null_none(tmp_path):
    n = len(ToolTrials().units)
    oracle, store = run_suite("oracle", tmp_path)
    assert len(oracle) == n and {r["outcome"] for r in oracle} == {"pass"}
    _, rows = store.query("SELECT family, count(*), avg(score), count(*) FILTER (WHERE outcome = 'pass') "
                          "FROM trial_results GROUP BY family")
    assert sum(r[1] for r in rows) == n and all(r[2] == 1.0 and r[3] == r[1] for r in rows)
    assert store.query("SELECT count(*) FROM attempts")[1] == [(0,)]  # never mixed into the agent tasks' pass@1
    null, store = run_suite("null", tmp_path)
    assert len(null) == n and {r["outcome"] for r in null} == {"wrong"}
    _, causes = store.query("SELECT DISTINCT cause FROM trial_results ORDER BY cause")
    assert causes == [("no_label",), ("no_words",), ("schema_invalid",), ("wrong_channel",)]


def test_the_command_line_gate_run_and_show(tmp_path, capsys):
    assert main(["trials", "gate"]) == 0
    assert "no repeated prompt: green" in capsys.readouterr().out
    assert main(["trials", "probe"]) == 0
    probed = capsys.readouterr().out
    assert "structural strategies all exactly 0" in probed and "chance floor" in probed
    with ScriptedServer("oracle", suite="trials", port=0) as srv:
        assert main(["trials", "run", str(tmp_path / "t.json"), "--url", srv.url, "--only", "select,classify",
                     "--limit", "5", "--samples", "2", "--temperature", "0", "--runs", str(tmp_path / "runs"),
                     "--work", str(tmp_path / "work"), "--db", str(tmp_path / "t.duckdb")]) == 0
        assert {s.get("temperature") for s in srv.sampling_seen} == {0}
    doc = json.loads((tmp_path / "t.json").read_text())
    assert {k: (f["trials"], f["runs"], f["pass_at_1"]) for k, f in doc["families"].items()} == \
        {"classify": (5, 10, 1.0), "select": (5, 10, 1.0)}
    assert "select" in capsys.readouterr().out
    assert main(["trials", "show", "--trial", "select_weather_oslo"]) == 0
    assert '"name": "get_weather"' in capsys.readouterr().out


def test_the_tool_order_depends_on_the_seed_and_the_request_is_built_in_one_place():
    kind = ToolTrials()
    unit = next(u for u in kind.units if len(u.trial.tools) >= 3)
    orders = {tuple(t["function"]["name"] for t in request_of(unit, seed)[1]) for seed in range(1, 30)}
    assert len(orders) > 1 and all(sorted(o) == sorted(unit.trial.tools) for o in orders)
    messages, tools, fmt = request_of(unit, 1)
    assert messages[0]["role"] == "system" and messages[-1]["content"] == unit.trial.messages[-1].content
    assert fmt is None and request_of(unit, 1) == (messages, tools, fmt)  # the same attempt asks the same


def test_calls_written_in_the_text_are_read_and_marked():
    written = {"content": '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```', "tool_calls": []}
    answer = answer_of(written, ["get_weather"])
    assert [(c.name, c.arguments, c.form) for c in answer.calls] == [("get_weather", {"city": "Oslo"}, "text")]
    assert answer_of(written, []).calls == ()  # JSON naming no offered tool is an answer (an extraction), not a call
    broken = answer_of({"content": "", "tool_calls": [{"name": "get_weather", "arguments": "{city: Oslo"}]},
                       ["get_weather"])
    assert [(c.name, c.arguments, c.form) for c in broken.calls] == [("get_weather", None, "native")]
    assert json.dumps(request_of(next(iter(ToolTrials().units)), 2))  # what is sent is plain JSON
