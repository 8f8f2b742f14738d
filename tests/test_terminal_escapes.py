"""Nothing an agent made reaches the operator's terminal as a control sequence: `kbench triage`, `report`, `sql`
and the run's own lines show ESC, C0/C1 controls, carriage returns and bidi overrides as visible escapes."""

import json
from pathlib import Path

import pytest
from bundled import SUITE

from kbench_dagster import cli
from kbench_dagster.ingest import ingest_run
from kbench_dagster.store import ResultsStore
from sandbox.engine.conditions import select_conditions
from sandbox.engine.scheduler import Scheduler
from sandbox.engine.spec import RunSpec
from sandbox.servers.scripted import ScriptedServer
from task_defs.loader import select

CLEAR, TITLE = "\x1b[2J\x1b[H", "\x1b]0;you have been pwned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\"
BIDI, C1 = "\u202etxt.exe", "\x9b31m"
HOSTILE = CLEAR + TITLE + LINK + BIDI + C1 + "\r" + "\x7f"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\r", "\x7f")
# printf makes the escapes inside the sandbox: in the tool's output, and in a file name (\302\233 is U+009B, CSI)
TOOL_COMMAND = ("printf '\\033[2J\\033]0;title from a tool\\007 \\033]8;;https://x/\\033\\\\link\\033]8;;\\033\\\\ "
                "done\\r\\n'; printf x > \"$(printf 'name\\033[31mred\\302\\233')\"; exit 3")


def test_visible_shows_controls_and_keeps_layout():
    from kbench_dagster.terminal import visible

    shown = visible(f"line one {HOSTILE}\n\tindented\u00a0text \udcff end")
    assert not any(c in shown for c in RAW)
    assert "\\x1b[2J" in shown and "\\x1b]0;you have been pwned\\x07" in shown and "\\u202etxt.exe" in shown
    assert "\\x9b31m" in shown and "\\x0d" in shown and "\\x7f" in shown
    assert "\n\tindented\u00a0text \\xff end" in shown  # layout, printable text and spaces kept; a raw byte shown
    assert visible("a\nb\tc", layout=False) == "a\\x0ab\\x09c"
    assert visible("plain text, ünïcödé, 日本語 ✓") == "plain text, ünïcödé, 日本語 ✓"
    assert visible("zero\u200bwidth\u2028sep") == "zero\\u200bwidth\\u2028sep"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    """A builtin attempt whose file names, file contents, tool output and final message all carry escapes."""
    root = tmp_path_factory.mktemp("escapes")
    name = f"evil{TITLE}{BIDI}.py"
    script = root / "replay.jsonl"
    script.write_text("\n".join(json.dumps(x) for x in [
        {"tool_calls": [{"name": "write", "arguments": {"path": name, "content": f"print('{HOSTILE}')\n"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": TOOL_COMMAND}}]},
        {"content": f"All done and it works. {HOSTILE}"}]) + "\n")
    with ScriptedServer(persona="replay", replay_path=script, port=0) as srv:
        spec = RunSpec(run_id="r", model=srv.model_id, conds=select_conditions("base"), tasks=select(SUITE, "clamp"),
                       url=srv.url, agent="builtin", runs_root=root / "runs", work_root=root / "work", timeout_s=60)
        Scheduler(spec, SUITE).run()
    return root


def kbench(capsys, *args: str) -> str:
    """The real command line, in this process (a fresh interpreter would spend seconds importing)."""
    capsys.readouterr()
    assert cli.main(list(args)) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [["triage", "r", "--task", "clamp"], ["triage", "r"], ["report", "r"]])
def test_triage_and_report_show_agent_text_without_obeying_it(hostile_run, argv, capsys):
    out = kbench(capsys, *argv, "--runs", str(hostile_run / "runs"))
    assert not [c for c in RAW if c in out], [c for c in RAW if c in out]
    if argv[-1] == "clamp":  # the evidence: the message, the tool output, the file names and contents
        assert "All done and it works. \\x1b[2J" in out
        assert "\\x1b]0;title from a tool\\x07" in out and "\\x1b]8;;https://x/" in out
        assert "evil\\x1b]0;you have been pwned\\x07\\u202etxt.exe.py" in out
        assert "name\\x1b[31mred\\x9b" in out
        assert "print('\\x1b[2J\\x1b[H" in out


def test_sql_shows_agent_text_without_obeying_it(hostile_run, capsys):
    ingest_run(ResultsStore(hostile_run / "kb.duckdb"), hostile_run / "runs", "r")
    out = kbench(capsys, "sql", "SELECT task, final_message FROM attempts", "--db", str(hostile_run / "kb.duckdb"))
    assert "All done and it works. \\x1b[2J" in out and not [c for c in RAW if c in out]
