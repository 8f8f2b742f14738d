"""A run's record holds what the agent could shape (tests.txt, the workdir/ copies of its files); triage and the
store's ingest read them with the harness's rights, so a link there, at the file or at a folder on the way, is
never followed (sandbox/engine/attempt_reader.py, rule 3 of sandbox/judge/)."""

import json
from pathlib import Path

from kbench_dagster.reporting.triage import render_evidence, triage
from sandbox.chatwork.textjob_card import textjob_rows
from sandbox.engine.attempt_reader import FolderRecord
from sandbox.engine.registry import RowSource

SECRET = "host-only-secret-4711"


def linked_record(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"CRASH x: {SECRET}\n")
    (outside / "reply.txt").write_text(SECRET)
    rec = tmp_path / "runs" / "r1" / "base" / "fizz" / "s1"
    (rec / "workdir").mkdir(parents=True)
    (rec / "result.json").write_text(json.dumps({"outcome": "crash"}))
    (rec / "tests.txt").symlink_to(outside / "secret.txt")
    (rec / "workdir" / "reply.txt").symlink_to(outside / "reply.txt")
    (rec / "workdir" / "sub").symlink_to(outside)  # a folder link on the way to a plain file
    (rec / "workdir" / "plain.txt").write_text("kept\n")
    return rec


def test_links_in_a_record_are_never_followed_by_its_reader(tmp_path):
    rec = FolderRecord(linked_record(tmp_path))
    assert rec.tests() == ""
    assert rec.file_text("reply.txt", 100) is None and rec.file_text("sub/reply.txt", 100) is None
    assert rec.file_text("plain.txt", 3) == "kep"


def test_triage_and_ingest_show_none_of_a_linked_secret(tmp_path):
    rec = linked_record(tmp_path)
    r = {"task": "fizz", "condition": "base", "seed": 1, "outcome": "crash", "record_path": str(rec)}
    assert SECRET not in repr(triage([r]))
    assert SECRET not in render_evidence([r], "fizz")
    text = {**r, "task": "job.item"}
    [row] = textjob_rows(RowSource(text, text, FolderRecord(rec), {}, None))["textjob_replies"]
    assert row["reply"] is None
