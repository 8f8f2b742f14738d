"""kbench discover reads a local copy of another benchmark's task folders, offline, and writes provisional
candidates marked trusted: false with their source path; nothing can run them as they are."""

import json

import pytest

from kbench_dagster.cli import main
from task_defs import load_suite
from task_defs.errors import TaskFileError


def test_candidates_by_difficulty_are_provisional(tmp_path, capsys):
    src = tmp_path / "bench"
    for name, level, kind in (("tar-split", "hard", "toml"), ("log-grep", "easy", "toml"), ("db-fix", "hard", "yaml"),
                              ("kernel-build", "hard", "toml"), ("broken", "hard", "toml")):
        folder = src / "tasks" / name
        (folder / "tests").mkdir(parents=True)
        if name == "broken":
            (folder / "task.toml").write_text("this is = = not toml")
        elif kind == "toml":
            (folder / "task.toml").write_text(f'[metadata]\ndifficulty = "{level}"\n')
            (folder / "instruction.md").write_text(f"Do the {name} job.\n")
        else:
            (folder / "task.yaml").write_text(
                f"descriptions:\n  - description: Repair the {name}.\ndifficulty: {level}\n")
    (src / "tasks" / "kernel-build" / "environment").mkdir()
    (src / "tasks" / "kernel-build" / "environment" / "Dockerfile").write_text("FROM scratch\n")
    out = tmp_path / "candidates.jsonl"
    assert main(["discover", "--source", str(src), "--difficulty", "hard", "--limit", "5", "--output", str(out)]) == 0
    found = [json.loads(line) for line in out.read_text().splitlines()]
    assert [c["id"] for c in found] == ["db-fix", "kernel-build", "tar-split"]
    assert all(c["trusted"] is False and c["source_path"].endswith(c["id"]) for c in found)
    assert found[0]["instruction"] == "Repair the db-fix." and found[1]["needs_image"] is True
    assert "trusted: false" in capsys.readouterr().err
    assert main(["discover", "--source", str(src), "--limit", "1", "--output", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 1
    with pytest.raises(TaskFileError):
        load_suite(out)  # a candidates file is never a suite
    assert main(["discover", "--source", str(src), "--output", str(tmp_path / "c.json")]) != 0
