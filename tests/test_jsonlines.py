"""JSON lines as the ledger and the reply cache write and read them: what orjson cannot take goes through the json
module, so no record is lost and none reads differently for who wrote it."""

import datetime
import json
import subprocess
import sys
from pathlib import Path

from sandbox.engine import attempt_ledger as ledger_module
from sandbox.engine.attempt_ledger import HELD_LINES, LEDGER, RunLedger
from sandbox.engine.jsonlines import json_bytes, parse_lines
from sandbox.engine.reply_cache import ReplyCache

REPO = Path(__file__).resolve().parents[1]


def test_lines_only_the_json_module_reads_are_read_and_a_torn_one_is_skipped():
    data = b"\n".join([
        b'{"key": "a", "score": NaN}',  # json.dumps writes NaN
        b'{"key": "b", "text": "\\ud800 alone"}',  # an escaped lone surrogate
        b'{"key": "c", "n": 1}',
        b'{"key": "d", "cut sh',  # a kill mid-write
    ])
    got = parse_lines(data)
    assert [e["key"] for e in got] == ["a", "b", "c"]
    assert got[0]["score"] != got[0]["score"]  # NaN
    assert got[1]["text"] == "\ud800 alone"


def test_values_orjson_refuses_are_written_all_the_same_and_read_back():
    when = datetime.datetime(2026, 12, 3, 8, 0, 0)
    entry = {"big": 2**70, "when": when, "name": "bad\udcff.txt", 3: "int key"}
    line = json_bytes(entry)
    back = parse_lines(line)[0]
    assert back["big"] == 2**70  # the json module wrote it: nothing rounded
    assert back["when"] == str(when)  # as json.dumps(default=str) writes a date
    assert back["name"].startswith("bad") and "\udcff" not in back["name"]  # escaped visibly, still UTF-8
    assert back["3"] == "int key"
    plain = json_bytes({"when": when, 3: "x"})  # the orjson path says the same of a date and an int key
    assert json.loads(plain) == {"when": str(when), "3": "x"}


def test_a_ledger_line_with_its_events_reads_back_whole(tmp_path):
    ledger = RunLedger(tmp_path)
    ledger.append({"type": "result", "key": "base/t1/s1", "result": {"outcome": "pass"}},
                  [json_bytes({"type": "request", "messages": [{"role": "user", "content": "héllo"}]}),
                   json_bytes({"type": "reply", "content": "ok"})])
    (entry,) = ledger.entries()
    assert entry["result"] == {"outcome": "pass"}
    assert [e["type"] for e in entry["events"]] == ["request", "reply"]
    assert entry["events"][0]["messages"][0]["content"] == "héllo"
    assert (tmp_path / LEDGER).read_bytes().count(b"\n") == 1


def test_a_replay_writes_its_lines_in_batches_and_keeps_them_when_it_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(ledger_module, "HELD_S", 3600.0)  # batches by count only: no verdict by the clock
    ledger = RunLedger(tmp_path)
    path = tmp_path / LEDGER
    try:
        with ledger.gathered():
            for i in range(HELD_LINES + 3):
                ledger.append({"type": "result", "key": f"base/t{i}/s1", "result": {"outcome": "pass"}})
                if i == HELD_LINES - 2:
                    assert not path.exists()  # held: nothing written yet
            assert path.read_bytes().count(b"\n") == HELD_LINES  # one whole batch
            raise RuntimeError("the replay met a harness bug")
    except RuntimeError:
        pass
    keys = [e["key"] for e in ledger.entries()]
    assert keys == [f"base/t{i}/s1" for i in range(HELD_LINES + 3)]  # the rest written on the way out, in order
    ledger.append({"type": "result", "key": "base/after/s1", "result": {}})  # outside a replay: written at once
    assert ledger.entries()[-1]["key"] == "base/after/s1"


def test_a_request_carrying_a_lone_surrogate_still_has_a_cache_key(tmp_path):
    asked = {"messages": [{"role": "assistant", "content": "half \ud83d"}], "model": "m"}
    key = ReplyCache.key(asked)
    assert len(key) == 64 and key == ReplyCache.key(dict(asked))
    assert key != ReplyCache.key({"messages": [{"role": "assistant", "content": "half"}], "model": "m"})
    cache = ReplyCache(tmp_path)
    assert cache.get(key, asked) is None  # a miss, also under the earlier key, never an error
    cache.put(key, {"content": "kept"})
    assert ReplyCache(tmp_path).get(key, asked) == {"content": "kept"}


def test_the_command_starts_without_the_openai_client_or_numpy():
    """A strike answered from the cache, a gate or a board needs neither; each cost a large part of every
    command's start."""
    code = ("import sys; from kbench_dagster.cli import build_parser; build_parser(); "
            "print(sorted({'openai', 'numpy', 'scipy'} & set(sys.modules)))")  # every command's module loaded
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
