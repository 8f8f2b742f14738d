"""kbench discover reads a local copy of another benchmark's task folders, offline, and writes provisional
candidates marked trusted: false with their source path; nothing can run them as they are."""

import json
import re
from pathlib import Path

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


def test_an_allowlisted_source_is_read_from_a_local_mirror_at_its_commit(tmp_path, capsys):
    """`--source harbor-cookbook --mirror DIR`: the allowlisted repository's task folder, read from a bare git
    mirror of our own making (nothing fetched); each record names the source, its URL at the mirror's commit, and
    carries the review fields (answer_contains, an empty workspace). A name off the allowlist, or a source without
    a mirror, is refused saying what to do."""
    import shutil
    import subprocess

    repo = tmp_path / "upstream"
    tasks = repo / "harbor_cookbook" / "recipes"
    for name, level in (("csv-people-to-json", "hard"), ("tally-log-levels", "easy")):
        shutil.copytree(Path(__file__).parent / "data" / "harbor_tasks" / name, tasks / name)
        toml = tasks / name / "task.toml"
        toml.write_text(re.sub(r'difficulty = "\w+"', f'difficulty = "{level}"', toml.read_text()))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "."], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "ours"], cwd=repo, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(mirrors / "harbor-framework+harbor-cookbook")],
                   check=True)
    out = tmp_path / "c.jsonl"
    assert main(["discover", "--source", "harbor-cookbook", "--mirror", str(mirrors), "--difficulty", "hard",
                 "--output", str(out)]) == 0
    [c] = [json.loads(line) for line in out.read_text().splitlines()]
    assert c["id"] == "csv-people-to-json" and c["trusted"] is False and c["source"] == "harbor-cookbook"
    assert c["source_url"] == ("https://github.com/harbor-framework/harbor-cookbook/tree/"
                               f"{head}/harbor_cookbook/recipes/csv-people-to-json")
    assert c["verification"] == {"type": "answer_contains", "expected_substrings": ["harbor-cookbook", "hard"]}
    assert c["workspace"] == {"files": {}}
    assert main(["discover", "--source", "some-other-bench", "--output", str(out)]) == 2
    assert "neither a folder nor an allowlisted source" in capsys.readouterr().err
    assert main(["discover", "--source", "terminal-bench", "--mirror", str(mirrors), "--output", str(out)]) == 2
    assert "clone it into a mirror folder as laude-institute+terminal-bench" in capsys.readouterr().err
