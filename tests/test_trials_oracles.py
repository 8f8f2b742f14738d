"""The tool-use trials' format and oracles (task_defs/trials): partial credit that extra calls cannot game, parallel
calls matched one to one (not greedily), a call written in the text is still a call, labels and JSON answers read
strictly; a broken trial file names the file, the trial and the field; the shipped families all pass their own
reference answer and fail an empty reply."""

import json

import pytest

from sandbox.chatwork.shell_oracle import SandboxShell
from task_defs.errors import TaskFileError
from task_defs.trials.grading import Answer, Call, grade, reference_answer, work_grade
from task_defs.trials.loader import load_families, load_family, normalised_prompt
from task_defs.trials.models import Trial

CANARY_LINE = (next(iter(load_families())).folder / "job.toml").read_text().splitlines()[0]


def trial(oracle: dict, tools=("a", "b", "c"), prompt="do it") -> Trial:
    return Trial.model_validate({"id": "t", "tools": list(tools), "messages": [{"role": "user", "content": prompt}],
                                 "oracle": oracle})


def calls(*pairs, form="native") -> Answer:
    return Answer(calls=tuple(Call(n, a, form) for n, a in pairs))


CHAIN = {"kind": "calls_exact", "calls": [{"name": "a", "args": {"x": {"eq": 1}}}, {"name": "b", "args": {}},
                                          {"name": "c", "args": {"y": {"eq": "z", "fold": True}}}]}


def test_calls_exact_credit_is_the_right_prefix_over_the_longer_list():
    t = trial(CHAIN)
    assert grade(t, calls(("a", {"x": 1}), ("b", {}), ("c", {"y": " Z "}))).passed
    two = grade(t, calls(("a", {"x": 1}), ("b", {}), ("c", {"y": "w"})))
    assert (two.passed, round(two.score, 3), two.cause) == (False, 0.667, "wrong_args")
    extra = grade(t, calls(("a", {"x": 1}), ("b", {}), ("c", {"y": "z"}), ("a", {"x": 1})))
    assert (extra.passed, extra.score, extra.cause) == (False, 0.75, "extra_calls")  # never 1.0 with extras
    short = grade(t, calls(("a", {"x": 1})))
    assert (round(short.score, 3), short.cause) == (0.333, "missing_calls")
    assert grade(t, calls(("b", {}), ("a", {"x": 1}), ("c", {"y": "z"}))).cause == "wrong_tool"  # order matters
    assert grade(t, calls(("a", None))).cause == "malformed_args"
    assert grade(t, Answer(text="I would call a, then b.")).cause == "wrong_channel"
    assert grade(t, Answer()).cause == "empty"


def test_arguments_are_read_strictly():
    t = trial({"kind": "calls_exact", "calls": [{"name": "a", "args": {
        "n": {"num": 2.5, "tol": 0.01}, "k": {"any_of": ["EUR", "eur"]}, "opt": {"eq": True, "optional": True}}}]})
    assert grade(t, calls(("a", {"n": 2.501, "k": "eur"}))).passed
    assert grade(t, calls(("a", {"n": 2.501, "k": "eur", "opt": True}))).passed
    assert not grade(t, calls(("a", {"n": 2.501, "k": "eur", "opt": 1}))).passed  # 1 is not True
    assert not grade(t, calls(("a", {"n": 2.6, "k": "EUR"}))).passed
    assert not grade(t, calls(("a", {"n": "2.5", "k": "EUR"}))).passed  # a string is not a number
    made_up = grade(t, calls(("a", {"n": 2.5, "k": "EUR", "verbose": True})))
    assert made_up.cause == "wrong_args" and "unknown argument 'verbose'" in made_up.detail


def test_parallel_calls_are_matched_one_to_one_not_greedily():
    # rule 1 takes either call, rule 2 only the first: pairing rule 1 with the first call (greedy) leaves rule 2
    # without a partner, though a full matching exists
    t = trial({"kind": "calls_set", "calls": [{"name": "a", "args": {"x": {"any_of": [1, 2]}}},
                                              {"name": "a", "args": {"x": {"eq": 1}}}]})
    assert grade(t, calls(("a", {"x": 1}), ("a", {"x": 2}))).passed
    assert grade(t, calls(("a", {"x": 2}), ("a", {"x": 1}))).passed
    twice = grade(t, calls(("a", {"x": 1}), ("a", {"x": 1}), ("a", {"x": 2})))
    assert (twice.passed, round(twice.score, 3), twice.cause) == (False, 0.667, "extra_calls")
    assert grade(t, calls(("a", {"x": 2}), ("a", {"x": 2}))).score == 0.5


def test_no_call_fails_any_call_native_or_written_in_the_text():
    t = trial({"kind": "no_call"})
    assert grade(t, Answer(text="None of these tools can book a taxi.")).passed
    assert grade(t, Answer(text=" {} ")).cause == "no_words"  # a no-knowledge answer must not pass
    assert grade(t, calls(("a", {}))).cause == "called_when_not_to"
    text_call = grade(t, calls(("a", {}), form="text"))
    assert text_call.cause == "called_when_not_to" and "text" in text_call.detail


def test_labels_and_json_answers():
    t = trial({"kind": "label", "labels": ["spam", "ham"], "answer": "spam"}, tools=())
    assert grade(t, Answer(text=' "Spam". ')).passed
    assert grade(t, Answer(text="ham")).cause == "wrong_label"
    assert grade(t, Answer(text="It is spam.")).cause == "no_label"  # a sentence is not the label
    with pytest.raises(ValueError, match="not one of the labels"):
        trial({"kind": "label", "labels": ["spam", "ham"], "answer": "eggs"}, tools=())
    schema = {"type": "object", "required": ["sku", "qty"], "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer"}, "lines": {"type": "array"}}}
    j = trial({"kind": "json_schema", "schema": schema, "reference": {"sku": "A-1", "qty": 3},
               "checks": {"sku": {"eq": "a-1", "fold": True}, "qty": {"eq": 3},
                          "lines.0": {"eq": 7, "optional": True}}}, tools=())
    assert grade(j, Answer(text='```json\n{"sku": "A-1", "qty": 3}\n```')).passed
    assert grade(j, Answer(text='{"sku": "A-1", "qty": "3"}')).cause == "schema_invalid"
    assert grade(j, Answer(text='{"sku": "A-2", "qty": 3}')).cause == "wrong_value"
    assert grade(j, Answer(text='{"sku": "A-1", "qty": 3, "lines": [8]}')).cause == "wrong_value"
    assert grade(j, Answer(text="sku A-1, qty 3")).cause == "not_json"
    assert grade(j, reference_answer(j)).passed


def test_the_grade_comes_from_the_work():
    one = {"kind": "calls_exact", "calls": [{"name": "a", "args": {"x": {"eq": 1}}}]}
    assert work_grade(trial(one)) == "easy"
    assert work_grade(trial(CHAIN)) == "hard"
    assert work_grade(trial({"kind": "no_call"}, tools=("a", "b"))) == "easy"
    assert work_grade(trial({"kind": "label", "labels": list("abcdefgh"), "answer": "a"}, tools=())) == "hard"


def write_family(folder, tools: dict, trials: list[dict]):
    folder.mkdir(parents=True, exist_ok=True)
    lines = [CANARY_LINE, f'family = "{folder.name}"', 'about = "a test family"']
    for name, t in tools.items():
        lines += [f"[tools.{name}]", f'description = "{t["description"]}"', f"[tools.{name}.parameters]",
                  'type = "object"', f"required = {json.dumps(t['required'])}"]
        for p in t["props"]:
            lines += [f"[tools.{name}.parameters.properties.{p}]", 'type = "string"']
    (folder / "job.toml").write_text("\n".join(lines) + "\n")
    (folder / "items.jsonl").write_text("\n".join(json.dumps(t) for t in trials) + "\n")
    return folder


TOOLS = {"find": {"description": "find things", "required": ["q"], "props": ["q", "limit"]}}


def item(**over):
    base = {"id": "fam_one", "tools": ["find"], "messages": [{"role": "user", "content": "find cats"}],
            "oracle": {"kind": "calls_exact", "calls": [{"name": "find", "args": {"q": {"eq": "cats"}}}]}}
    return {**base, **over}


@pytest.mark.parametrize("bad, field, words", [
    (item(tools=["find", "fetch"]), "fam_one.tools", "'fetch' is not one of the family's tools"),
    (item(oracle={"kind": "calls_exact", "calls": [{"name": "find", "args": {"query": {"eq": "x"}}}]}),
     "fam_one.oracle.calls.0.args", "takes no argument 'query'"),
    (item(oracle={"kind": "calls_exact", "calls": [{"name": "find", "args": {"limit": {"eq": "3"}}}]}),
     "fam_one.oracle.calls.0.args", "requires 'q': give it a rule"),
    (item(oracle={"kind": "calls_exact", "calls": [{"name": "find", "args": {"q": {"eq": "x", "num": 1}}}]}),
     "fam_one.oracle.calls_exact.calls.0.args.q", "exactly one of eq, any_of, num"),
    (item(messages=[{"role": "assistant", "content": "hi"}]), "fam_one", "the last message must be the user's"),
])
def test_a_broken_trial_names_the_file_the_trial_and_the_field(tmp_path, bad, field, words):
    folder = write_family(tmp_path / "fam", TOOLS, [bad])
    with pytest.raises(TaskFileError) as exc:
        load_family(folder)
    assert exc.value.path.endswith("items.jsonl") and exc.value.field.startswith(field) and words in str(exc.value)


def test_a_tool_without_a_description_is_refused_in_job_toml(tmp_path):
    folder = write_family(tmp_path / "fam", {"find": {**TOOLS["find"], "description": ""}}, [item()])
    with pytest.raises(TaskFileError, match=r"job.toml: field 'tools.find': tool 'find' has no description"):
        load_family(folder)


def test_every_shipped_trial_passes_its_reference_and_fails_an_empty_reply(tmp_path):
    families = load_families()
    trials = [t for f in families for t in f.trials]
    assert len(trials) >= 3
    shell = SandboxShell(tmp_path)  # the shell trials' references run, in the sandbox
    for t in trials:
        assert grade(t, reference_answer(t), shell).passed, t.id
        assert not grade(t, Answer(), shell).passed, t.id
    prompts = [normalised_prompt(t) for t in trials]
    assert len(set(prompts)) == len(prompts)


def json_item(schema: dict, tid: str = "fam_json") -> dict:
    return {"id": tid, "tools": [], "messages": [{"role": "user", "content": f"answer {tid} in JSON"}],
            "oracle": {"kind": "json_schema", "schema": schema, "checks": {}, "reference": {"a": 1}}}


def test_a_broken_answer_schema_is_refused_every_time_and_a_valid_one_is_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    marker = tmp_path.name  # a schema no other test has checked in this process
    broken = {"type": "object", "properties": {"a": {"type": "nonsense"}}, "title": marker}
    folder = write_family(tmp_path / "fam", TOOLS, [json_item(broken)])
    for _ in range(2):
        with pytest.raises(TaskFileError) as exc:
            load_family(folder)
        assert exc.value.field == "fam_json.oracle.schema" and "not a valid JSON schema" in str(exc.value)
    remembered = list((tmp_path / "cache" / "kbench").glob("valid-trial-schemas-*.txt"))
    assert all(not p.read_text().strip() for p in remembered)  # nothing kept of a schema that failed
    valid = {"type": "object", "properties": {"a": {"type": "integer"}}, "title": marker}
    write_family(tmp_path / "fam", TOOLS, [json_item(valid)])
    load_family(folder)
    (kept,) = (tmp_path / "cache" / "kbench").glob("valid-trial-schemas-jsonschema-*.txt")
    assert len(kept.read_text().split()) == 1
