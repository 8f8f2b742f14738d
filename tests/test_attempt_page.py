"""What an attempt changed and its report.md: added, modified and deleted files found, caches left out, and
nothing the agent wrote can break out of the report's code fences."""

import re

from sandbox.engine.attempt_page import changed_files, fingerprint, write_report


def test_changes_are_found_and_caches_left_out(tmp_path):
    work = tmp_path / "w"
    (work / "pkg").mkdir(parents=True)
    (work / "keep.txt").write_text("same\n")
    (work / "edit.py").write_text("x = 1\n")
    (work / "gone.txt").write_text("bye\n")
    before = fingerprint(work)
    (work / "edit.py").write_text("x = 2\n")
    (work / "gone.txt").unlink()
    (work / "pkg" / "new.py").write_text("y = 1\n")
    for cache in ("__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", "node_modules"):
        (work / cache).mkdir()
        (work / cache / "junk").write_text("z")
    (work / "mod.cpython-311.pyc").write_bytes(b"\0")
    assert changed_files(before, fingerprint(work)) == [
        {"path": "edit.py", "change": "modified"}, {"path": "gone.txt", "change": "deleted"},
        {"path": "pkg/new.py", "change": "added"}]


def test_what_the_agent_wrote_stays_inside_its_fence(tmp_path):
    setup, record = tmp_path / "setup", tmp_path / "rec"
    setup.mkdir()
    (record / "workdir").mkdir(parents=True)
    hostile = "ok\n````\n# Injected heading\n````` more\n"
    (record / "workdir" / "notes.md").write_text(hostile)
    (record / "tests.txt").write_text("FAIL something\n```\n")
    result = {"task": "t", "condition": "base", "seed": 1, "outcome": "wrong", "final_message": "``````done",
              "changed_files": [{"path": "notes.md", "change": "added"}]}
    write_report(record, result, ["do it ```now```"], setup)
    text = (record / "report.md").read_text()
    fences = re.findall(r"^(`{3,})text$", text, re.M)
    # each fence one longer than the longest run of backticks inside it: prompt, file, test output, last message
    assert [len(f) for f in fences] == [4, 6, 4, 7]
    # every fenced block closes with its own fence, so "# Injected heading" is never a heading of the report
    outside = re.sub(r"^(`{3,})text\n.*?\n\1$", "", text, flags=re.M | re.S)
    assert "Injected" not in outside and "# t · base · seed 1" in outside
