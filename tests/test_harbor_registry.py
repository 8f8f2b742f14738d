"""Harbor's registry.json read for datasets whose task folders are at hand (`kbench import-tasks REGISTRY --dataset
NAME@VERSION --mirror DIR`): a local path relative to the registry, a clone or a bare git folder of the repository
a task names, at the commit it pins; a task not at hand is named with what it needs and the others go on; the
laid-out folder is a suite like any other. Our own tasks and repositories, made here; nothing is fetched."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kbench_dagster.cli import main
from sandbox.tasks.validation import validate_tasks
from task_defs import load_suite
from task_defs.errors import TaskFileError
from task_defs.importers.harbor_registry import is_registry, pick, read_registry

OURS = Path(__file__).parent / "data" / "harbor_tasks"
URL = "https://git.example.org/acme/shop-tasks.git"
pytestmark = pytest.mark.usefixtures("imported_cache")


def git(*args, cwd):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def registry(tmp_path):
    """A repository of ours with two commits (the second breaks the reference), a work-tree clone and a bare one
    under two mirror folders, a local task beside the registry, and the registry naming all of them."""
    repo = tmp_path / "upstream"
    shutil.copytree(OURS / "csv-people-to-json", repo / "tasks" / "people")
    git("init", "-q", ".", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "first", cwd=repo)
    pinned = git("rev-parse", "HEAD", cwd=repo)
    (repo / "tasks" / "people" / "solution" / "solve.sh").write_text("#!/bin/bash\nexit 0\n")
    git("commit", "-q", "-am", "second", cwd=repo)
    (tmp_path / "clones").mkdir()
    (tmp_path / "bare").mkdir()
    git("clone", "-q", str(repo), str(tmp_path / "clones" / "acme+shop-tasks"), cwd=tmp_path)
    git("clone", "-q", "--bare", str(repo), str(tmp_path / "bare" / "shop-tasks.git"), cwd=tmp_path)
    shutil.copytree(OURS / "tally-log-levels", tmp_path / "reg" / "local" / "tally")
    doc = [{"name": "shop", "version": "1.0", "description": "ours", "tasks": [
        {"name": "people-pinned", "git_url": URL, "git_commit_id": pinned, "path": "tasks/people"},
        {"name": "people-head", "git_url": URL, "path": "tasks/people"},
        {"name": "tally", "path": "local/tally"},
        {"name": "elsewhere", "git_url": "https://git.example.org/other/repo.git", "path": "x"}]},
        {"name": "shop", "version": "0.9", "tasks": []}]
    path = tmp_path / "reg" / "registry.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("mirror", ["clones", "bare"])
def test_a_registry_dataset_is_laid_out_from_local_mirrors_at_its_pinned_commits(tmp_path, registry, capsys,
                                                                                 mirror):
    into = tmp_path / "laid"
    assert main(["import-tasks", str(registry), "--dataset", "shop@1.0", "--mirror", str(tmp_path / mirror),
                 "--into", str(into), "--details"]) == 0
    said = capsys.readouterr()
    assert sorted(p.name for p in into.iterdir() if p.is_dir()) == ["people-head", "people-pinned", "tally"]
    assert "3 of 4 task folder(s) at hand" in said.err and "1 not at hand" in said.err
    assert "no local mirror of https://git.example.org/other/repo.git" in said.out
    assert "other+repo or repo" in said.out  # where to put the clone
    suite = load_suite(into)
    assert {t.id for t in suite.tasks} == {"people_pinned", "people_head", "tally"}
    results = {v.task_id: v for v in validate_tasks(list(suite.tasks), tmp_path / "v", workers=2)}
    assert results["people_pinned"].reference.outcome == "pass"  # the first commit's solve.sh
    assert results["people_head"].reference.outcome == "wrong"  # the second's, which writes nothing
    assert results["tally"].status == "ok"


def test_a_registry_names_what_is_wrong_and_which_dataset_to_pick(tmp_path, registry, capsys):
    datasets = read_registry(registry)
    assert [d.qualified for d in datasets] == ["shop@1.0", "shop@0.9"]
    assert is_registry(registry) and not is_registry(OURS / "tally-log-levels" / "task.toml")
    with pytest.raises(TaskFileError, match="several datasets; name one of: shop@1.0, shop@0.9"):
        pick(datasets, None, registry)
    with pytest.raises(TaskFileError, match="shop names several versions"):
        pick(datasets, "shop", registry)
    with pytest.raises(TaskFileError, match="tools@2.0 is not in the registry"):
        pick(datasets, "tools@2.0", registry)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"name": "x", "tasks": [{"name": "a", "git_url": URL, "path": "../up"}]}]))
    with pytest.raises(TaskFileError, match=r"datasets\[0\].tasks\[0\].path"):
        read_registry(bad)
    # nothing at hand at all: the first task's need is the error, and the exit status says so
    remote = tmp_path / "remote.json"
    remote.write_text(json.dumps([{"name": "x", "tasks": [{"name": "a", "git_url": URL, "path": "tasks/people"}]}]))
    capsys.readouterr()
    assert main(["import-tasks", str(remote), "--into", str(tmp_path / "none")]) == 2
    assert f"no local mirror of {URL} under no --mirror given" in capsys.readouterr().err
    # a folder kbench did not lay out is never emptied for a dataset
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    assert main(["import-tasks", str(registry), "--dataset", "shop@1.0", "--into", str(tmp_path / "mine")]) == 2
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    assert "holds files kbench did not lay out" in capsys.readouterr().err
