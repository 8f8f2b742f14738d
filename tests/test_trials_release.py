"""`kbench trials version|audit|floor|release` over a small suite built in a temporary folder from the seed trials
of three published families (a few of each: seconds, no shell sandbox): version names both fingerprints; audit
finds a case-only duplicate and --strict refuses it; floor's reference rows all pass; release stops at the gate on
a broken reference and otherwise writes the fingerprinted manifest."""

import json
import shutil

import pytest

from kbench_dagster.cli import main
from kbench_dagster.reporting.trial_audit import duplicate_key, title_of
from kbench_dagster.reporting.trial_floor import sample_units, token_estimate
from sandbox.chatwork.trials import ToolTrials
from task_defs.itemfiles import ITEMS_FILE, SPEC_FILE
from task_defs.trials.grading import Answer, Call
from task_defs.trials.loader import TRIALS_DIR, load_families, rules_fingerprint
from task_defs.trials.models import Trial

FAMILIES = {"select": 8, "classify": 6, "extract": 4}  # family -> how many of its seed trials


def make_suite(root, edit=None):
    """A trials folder: each family's job.toml and its first seed trials (edit(family, trials) may change them)."""
    for fam, n in FAMILIES.items():
        (root / fam).mkdir(parents=True)
        shutil.copy(TRIALS_DIR / fam / SPEC_FILE, root / fam / SPEC_FILE)
        lines = (TRIALS_DIR / fam / ITEMS_FILE).read_text(encoding="utf-8").splitlines()[:n]
        trials = [json.loads(x) for x in lines]
        if edit:
            edit(fam, trials)
        (root / fam / ITEMS_FILE).write_text("".join(json.dumps(t) + "\n" for t in trials), encoding="utf-8")
    return root


@pytest.fixture
def suite(tmp_path):
    return make_suite(tmp_path / "trials")


def _case_only_twin(fam, trials):
    if fam == "select":
        twin = json.loads(json.dumps(trials[0]))
        text = twin["messages"][-1]["content"]
        twin["id"] += "_twin"
        twin["messages"][-1]["content"] = "  " + text.upper().rstrip("?.!") + "!"
        trials.append(twin)


def test_version_prints_the_engine_and_both_fingerprints(suite, capsys):
    assert main(["trials", "version", "--suite", str(suite)]) == 0
    out = capsys.readouterr().out
    kind = ToolTrials(families=load_families(suite))
    assert kind.fingerprint in out and rules_fingerprint() in out
    assert "kbench-dagster " in out and f"{len(kind.units)} in 3 families" in out


def test_audit_reports_coverage_and_strict_refuses_a_case_only_duplicate(tmp_path, suite, capsys):
    assert main(["trials", "audit", "--suite", str(suite), "--strict"]) == 0
    out = capsys.readouterr().out
    assert "select" in out and "titles" in out and "differ only in case" in out and out.rstrip().endswith("none")
    twinned = make_suite(tmp_path / "next", _case_only_twin)
    assert main(["trials", "audit", "--suite", str(twinned)]) == 0  # advisory without --strict
    assert main(["trials", "audit", "--suite", str(twinned), "--strict"]) == 1
    captured = capsys.readouterr()
    first = json.loads((TRIALS_DIR / "select" / ITEMS_FILE).read_text().splitlines()[0])["id"]
    assert f"select: {first} / {first}_twin" in captured.out and "--strict" in captured.err
    assert main(["trials", "audit", "--suite", str(twinned), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["duplicates"][0]["trials"] == [first, f"{first}_twin"]
    assert set(doc["families"]["classify"]["grades"]) == {"easy", "medium", "hard"}


def test_the_duplicate_key_keeps_shell_syntax_and_path_punctuation():
    assert duplicate_key("Open notes.txt.") == duplicate_key("open   NOTES.TXT")
    assert duplicate_key("Is it raining? Tell me.") == duplicate_key("is it raining. tell me!")
    assert duplicate_key("Run `ls -R` here.") != duplicate_key("Run `ls -r` here.")
    assert duplicate_key("Run `a  b` now") != duplicate_key("Run `a b` now")
    assert duplicate_key("Go up with cd ..") != duplicate_key("Go up with cd")
    assert duplicate_key("Delete ./build/.") != duplicate_key("Delete ./build/")


def test_a_title_masks_the_values_of_the_first_sentence():
    def trial(text):
        return Trial.model_validate({"id": "t", "messages": [{"role": "user", "content": text}],
                                     "oracle": {"kind": "no_call"}})

    assert title_of(trial("Is it raining in Oslo right now? Tell me.")) == \
        title_of(trial("Is it raining in Lima right now?"))
    assert title_of(trial("Set a 4 minute timer called \"tea\".")) == 'set a # minute timer called "…".'
    assert title_of(trial("Copy notes.txt to /tmp/x")) == "copy /… to /…"


def test_floor_on_a_family_gives_passing_reference_rows_and_a_table(suite, tmp_path, capsys):
    out = tmp_path / "floor.json"
    assert main(["trials", "floor", "--suite", str(suite), "--family", "select", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "select" in table and "total" in table and "ms med" in table and "estimate" in table
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == FAMILIES["select"] and all(r["passed"] and r["family"] == "select" for r in rows)
    assert all(r["clock"] == "thread" and r["latency_ms"] >= 0 and r["tokens_est"] >= 1
               and r["heap_peak_bytes"] >= 0 for r in rows)
    assert main(["trials", "floor", "--suite", str(suite), "--sample", "3", "--seed", "7", "--json", str(out)]) == 0
    picked = [r["trial"] for r in json.loads(out.read_text())["rows"]]
    assert len(picked) == 3 and picked == [u.id for u in sample_units(ToolTrials(load_families(suite)).units, 3, 7)]
    with pytest.raises(SystemExit):
        main(["trials", "floor", "--grade", "extreme"])
    assert main(["trials", "floor", "--suite", str(suite), "--family", "nope"]) == 2


def test_the_token_estimate_is_a_quarter_of_the_characters_sent():
    assert token_estimate(Answer(text="abcdefgh")) == 2 and token_estimate(Answer(text="")) == 1
    call = Answer(calls=(Call("f", {"a": 1}),))
    assert token_estimate(call) == -(-len('[{"name": "f", "arguments": {"a": 1}}]') // 4)


def _broken_reference(fam, trials):
    if fam == "extract":
        o = trials[0]["oracle"]
        key = next(iter(o["checks"]))
        o["reference"] = {**o["reference"], key: "not the value"}


def test_release_stops_at_the_gate_on_a_broken_reference(tmp_path, capsys):
    broken = make_suite(tmp_path / "broken", _broken_reference)
    out = tmp_path / "m.json"
    assert main(["trials", "release", "--suite", str(broken), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "(gate)" in captured.err and "its reference answer fails" in captured.out
    assert "2/4 probe" not in captured.out and not out.exists()


def test_release_writes_the_manifest(suite, tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["trials", "release", "--suite", str(suite), "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    order = [out.index(f"{i}/4 {s}") for i, s in enumerate(("gate", "probe", "floor", "emit"), 1)]
    assert order == sorted(order)
    kind = ToolTrials(families=load_families(suite))
    written = list((runs / "trials-release").glob("release-*.json"))
    assert [p.name for p in written] == [f"release-{kind.fingerprint[:16]}.json"]
    doc = json.loads(written[0].read_text())
    assert doc["suite_fingerprint"] == kind.fingerprint and doc["rules_fingerprint"] == rules_fingerprint()
    assert {f: v["trials"] for f, v in doc["families"].items()} == {f: n for f, n in sorted(FAMILIES.items())}
    assert 0 <= doc["probe"]["chance_floor"] <= 1 and doc["floor"]["total"]["passed"] == sum(FAMILIES.values())
    assert doc["engine_version"] and doc["trials"] == sum(FAMILIES.values())
    # a folder outside the repository is named by its own name: an absolute path would carry the host's user name
    assert doc["suite_folder"] == suite.name and str(tmp_path) not in written[0].read_text()
