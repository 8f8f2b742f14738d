"""The generated tool-use trials (task_defs/trials/generate/): the same seed makes the same files, the files on
disk are what the generator makes, every generated trial is witnessed (its reference passes, an empty reply and a
bare `{}` score 0), no prompt is asked twice in the suite, the gate is green and the chance strategies stay low."""

import json
import shutil
from collections import Counter

import pytest

from kbench_dagster.commands.trials import gate_problems
from sandbox.chatwork.trial_checks import probe
from sandbox.chatwork.trials import ToolTrials
from task_defs.trials import generate as gen
from task_defs.trials.grading import Answer, grade, reference_answer
from task_defs.trials.loader import GENERATED_FILE, TRIALS_DIR, Family, load_families, normalised_prompt


@pytest.fixture(scope="module")
def made():
    return gen.generate(7)


def test_the_same_seed_makes_the_same_trials_and_another_seed_others(made):
    again = gen.generate(7)
    assert {f: gen.render(t) for f, t in made.items()} == {f: gen.render(t) for f, t in again.items()}
    other = gen.generate(8)
    assert gen.render(other["select"]) != gen.render(made["select"])


def test_the_files_on_disk_are_what_the_generator_makes(made, capsys):
    for fam, trials in made.items():
        assert (TRIALS_DIR / fam / GENERATED_FILE).read_text(encoding="utf-8") == gen.render(trials), fam
    assert gen.main(["--check"]) == 0
    assert "checked 1820 generated trials" in capsys.readouterr().out


def test_check_names_a_stale_file(tmp_path, monkeypatch, capsys):
    root = tmp_path / "trials"
    shutil.copytree(TRIALS_DIR, root)
    lines = (root / "flows" / GENERATED_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "flows" / GENERATED_FILE).write_text("".join(lines[:-1]), encoding="utf-8")
    monkeypatch.setattr(gen, "TRIALS_DIR", root)
    assert gen.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "flows/generated.jsonl: stale" in err and "select" not in err


def test_counts_and_mix(made):
    assert sum(len(t) for t in made.values()) >= 1820
    assert sum(len(f.trials) for f in load_families()) >= 1871
    kinds = {fam: Counter(t.oracle.kind for t in trials) for fam, trials in made.items()}
    assert kinds["select"]["calls_exact"] >= 350 and 0.1 <= kinds["select"]["no_call"] / 450 <= 0.2
    assert kinds["flows"]["calls_exact"] >= 100 and kinds["flows"]["calls_set"] >= 100 and kinds["flows"]["no_call"]
    assert set(kinds["classify"]) == {"label"} and set(kinds["extract"]) == {"json_schema"}
    assert set(kinds["fill"]) == {"calls_exact"} and set(kinds["hotkeys"]) == {"label"}
    assert set(kinds["robust"]) == {"calls_exact", "no_call", "label"}
    for fam, trials in made.items():
        assert [t.id for t in trials] == [f"gen_{fam}_{i:04d}" for i in range(1, len(trials) + 1)]
        assert {t.source for t in trials} == {"generated"}
        calls = [t for t in trials if t.oracle.kind in ("calls_exact", "calls_set", "no_call")]
        assert all(2 <= len(t.tools) <= 6 for t in calls)


def test_every_generated_trial_is_witnessed(made):
    for trials in made.values():
        for t in trials:
            assert grade(t, reference_answer(t)).passed, t.id
            assert grade(t, Answer()).score == 0, t.id
            assert grade(t, Answer(text="{}")).score == 0, t.id


def test_a_trial_its_reference_fails_is_a_generator_error():
    bad = gen.Trial.model_validate({"id": "gen_x_0001", "source": "generated", "messages": [
        {"role": "user", "content": "Which?"}], "oracle": {"kind": "json_schema", "schema": {
            "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            "checks": {"a": {"eq": 2}}, "reference": {"a": 1}}})
    with pytest.raises(gen.GeneratorError, match="reference answer fails"):
        gen.witness(bad, {})


def test_no_prompt_is_asked_twice_and_label_texts_do_not_give_the_answer_away(made):
    prompts = [normalised_prompt(t) for f in load_families() for t in f.trials]
    assert len(prompts) == len(set(prompts))
    for t in (t for fam in ("classify", "robust", "hotkeys") for t in made[fam] if t.oracle.kind == "label"):
        assert not gen.gives_away(t.messages[-1].content, tuple(t.oracle.labels), t.oracle.answer), t.id


def test_label_answers_are_spread_over_each_label_list(made):
    by_list: dict[tuple, Counter] = {}
    for t in (t for fam in ("classify", "robust", "hotkeys") for t in made[fam] if t.oracle.kind == "label"):
        by_list.setdefault(tuple(t.oracle.labels), Counter())[t.oracle.answer] += 1
    for labels, counts in by_list.items():
        assert set(counts) == set(labels), labels
        assert max(counts.values()) - min(counts.values()) <= 3, (labels, counts)


def test_the_gate_is_green_over_the_whole_suite():
    assert gate_problems(ToolTrials()) == []


def test_no_knowledge_strategies_stay_low_on_the_generated_trials():
    families = [Family(f.id, f.folder, f.spec, tuple(t for t in f.trials if t.source == "generated"))
                for f in load_families() if f.id in gen.FAMILIES]
    found = probe(ToolTrials(families))
    assert {v["trials"] for v in found.values()} == {1820, 180}  # the shell forgeries: 180 shell trials
    assert all(v["score"] == 0 for v in found.values() if v["kind"] == "structural")
    chance = {name: v["share"] for name, v in found.items() if v["kind"] == "chance"}
    assert len(chance) == 3 and max(chance.values()) < 0.2, chance


def test_rendered_lines_are_compact_json_with_a_stable_key_order(made):
    line = gen.render(made["extract"][:1]).splitlines()[0]
    assert list(json.loads(line)) == ["id", "messages", "oracle", "source"] and ": " not in line[:40]


def test_the_rng_is_deterministic_and_spread():
    a, b = gen.Rng(7), gen.Rng(7)
    draws = [a.below(10) for _ in range(2000)]
    assert draws == [b.below(10) for _ in range(2000)]
    assert all(150 <= draws.count(d) <= 250 for d in range(10))
    assert gen.Rng(8).below(1 << 30) != gen.Rng(7).below(1 << 30)
