"""`kbench selftest`: every attack family, under pi and builtin, is contained in a real run whose ordinary task
still passes, and the host has nothing left over afterwards. The whole suite runs once (about two minutes on two
cores); each row is a test of its own, so a failure names the family, the agent and the evidence."""

import json

import pytest
from bundled import SUITE
from conftest import needs_bwrap

from kbench_dagster import cli
from kbench_dagster.selftest import FAMILIES
from kbench_dagster.selftest.cli import render_host, render_table
from kbench_dagster.selftest.family import JudgeFamily, Verdict
from kbench_dagster.selftest.persona import TaskScripts
from kbench_dagster.selftest.runner import AGENTS, Row, run_selftest
from sandbox.servers.scripted.personas import Conversation

# the families whose task needs its own image run in make test-integration (tests/test_harbor_images.py)
HERE = [f for f in FAMILIES if not (isinstance(f, JudgeFamily) and f.docker)]


@pytest.fixture(scope="module")
def selftest(tmp_path_factory):
    root = tmp_path_factory.mktemp("selftest")
    out = run_selftest(HERE, list(AGENTS), root / "work", root / "runs", suite=SUITE)
    print("\n" + render_table(out.rows) + "\n" + render_host(out))
    return out


@needs_bwrap
@pytest.mark.parametrize(("family", "agent"), [(f.name, a) for f in HERE  # a judge family: its own agents
                                               for a in (f.agents if isinstance(f, JudgeFamily) else AGENTS)])
def test_the_attack_is_contained_and_the_next_task_passes(selftest, family, agent):
    [row] = [r for r in selftest.rows if (r.family, r.agent) == (family, agent)]
    assert row.verdict.contained, row.verdict.evidence


@needs_bwrap
def test_nothing_is_left_on_the_host(selftest):
    h = selftest.host
    assert h.processes == [], h.processes
    assert h.made == [], h.made
    assert h.key_hits == [], h.key_hits


def test_each_task_gets_its_own_script_and_a_request_for_none_is_foreign(tmp_path):
    scripts = TaskScripts(tmp_path)
    fizz, clamp = SUITE.get("fizz"), SUITE.get("clamp")
    scripts.add(fizz, [{"content": "fizz reply"}])
    scripts.add(clamp, [{"content": "clamp reply"}])
    ask = lambda text: scripts.respond(Conversation([{"role": "user", "content": [{"type": "text", "text": text}]}]))  # noqa: E731
    assert ask("Please:\n" + clamp.all_prompts[0]).content == "clamp reply"
    assert ask(fizz.all_prompts[0]).content == "fizz reply"
    assert scripts.foreign == []
    ask("forged by a process in the sandbox")
    assert scripts.foreign == ["forged by a process in the sandbox"]
    assert [json.loads(line) for line in (tmp_path / "fizz.jsonl").read_text().splitlines()] == [
        {"content": "fizz reply"}]


def test_the_table_shows_evidence_without_obeying_it():
    rows = [Row("deep-tree", "pi", Verdict(True, "fine"), 1.0),
            Row("pi-tamper", "builtin", Verdict(False, "allowed: \x1b]0;title\x07 \x9b2J"), 1.0)]
    table = render_table(rows)
    assert "\x1b" not in table and "\x9b" not in table and "\\x1b]0;title\\x07" in table
    lines = table.splitlines()
    assert lines[0].split() == ["attack", "agent", "contained", "evidence"]
    assert lines[2].split()[:3] == ["deep-tree", "pi", "yes"] and lines[3].split()[:3] == ["pi-tamper", "builtin", "no"]


def test_an_unknown_family_or_agent_is_refused(capsys):
    assert cli.main(["selftest", "--families", "judge-import,nosuch"]) == 2
    assert "nosuch unknown" in capsys.readouterr().err
    assert cli.main(["selftest", "--agents", "claude"]) == 2
    assert "claude unknown" in capsys.readouterr().err


def test_the_host_check_finds_the_key_and_what_an_attack_made(tmp_path):
    from kbench_dagster.selftest import host

    work, runs = tmp_path / "work", tmp_path / "runs"
    for folder in (work, runs / "r1" / "base"):
        folder.mkdir(parents=True)
    start = host.before(work, runs)
    marker, key = "kbstcafe0123", "sk-selftest-0123456789"
    made = tmp_path / f"planted-{marker}.py"  # beside the work and runs folders
    made.write_text("x\n")
    (tmp_path / "someone-elses").mkdir()
    (tmp_path / "someone-elses" / "note.txt").write_text("no marker here\n")
    (tmp_path / "holds-it").mkdir()
    (tmp_path / "holds-it" / "inner.txt").write_text(f"made by {marker}\n")
    (work / f"inside-{marker}.txt").write_text("inside the work folder: not outside\n")
    (runs / "r1" / "base" / "events.jsonl").write_text(json.dumps({"leak": key}) + "\n")
    (runs / "r1" / "manifest.json").write_text("{}\n")
    after = host.after(start, marker, key, [runs / "r1"])
    assert sorted(after.made) == sorted([str(made), str(tmp_path / "holds-it")])
    assert after.other_new >= 1
    assert after.key_hits == [str(runs / "r1" / "base" / "events.jsonl")]
    assert not after.clean
