"""kbench compare --models A,B makes the runs it is missing (resume applies: asked again, it asks the server
nothing) and prints the paired comparison of the two."""

from kbench_dagster.cli import main
from sandbox.servers.scripted import ScriptedServer


def test_compare_makes_missing_runs_then_compares(tmp_path, capsys):
    with ScriptedServer(persona="oracle", port=0) as srv:
        argv = ["compare", "--models", "alpha,beta", "--repeat", "2", "--url", srv.url, "--agent", "builtin",
                "--tasks", "clamp,fizz", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                "--db", str(tmp_path / "r.duckdb")]
        assert main(argv) == 0
        first = srv.chat_requests
        out = capsys.readouterr().out
        assert "compare-alpha-kbench" in out and "compare-beta-kbench" in out
        assert len(list((tmp_path / "runs").glob("compare-*/base/*/s*/result.json"))) == 2 * 2 * 2
        assert main(argv) == 0
        assert srv.chat_requests == first  # nothing was missing the second time
    assert main(["compare", "--models", "alpha,alpha", "--url", "http://127.0.0.1:9/v1"]) != 0
