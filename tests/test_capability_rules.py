"""The capability suite's rules, item by item: the loader names the file and the field; the in-process graders
score what they say; the design contract catches an unfailable check, a reference that fails, an answer in the
prompt and a diagnosis without its fix; the judge takes three shuffled votes and their per-criterion median,
recording each; klbench's scoring (median of runs, the equal mean of category means, usability, refusals,
Rogan-Gladen) against values computed by hand."""

import json

import pytest
import yaml

from kbench_dagster.commands.capability import judged_share
from sandbox.chatwork.capability import CapabilityItems, is_refusal
from sandbox.chatwork.capability_audit import audit_item
from sandbox.chatwork.judge import Judge, majority, vote_order
from sandbox.chatwork.judge_panel import JudgePanel
from sandbox.servers.scripted import ScriptedServer
from task_defs.canary import CANARY
from task_defs.capability.checks import grade_text, score_of
from task_defs.capability.loader import load_categories
from task_defs.capability.models import Item
from task_defs.capability.scoring import item_scores, paired_tiers, rogan_gladen, score_model
from task_defs.errors import TaskFileError

FIELDS = {"id": "basic_totals", "prompt": "Add the prices 4 and 5 and the count. Reply with lines SUM: and COUNT:.",
          "reference": "SUM: 9\nCOUNT: 2\nUNIT: euro", "wrong": ["SUM: 8\nCOUNT: 3\nUNIT: cents"],
          "grader": {"kind": "fields", "checks": [
              {"name": "sum", "field": "SUM", "op": "number", "value": 9},
              {"name": "count", "field": "COUNT", "op": "number", "value": 2},
              {"name": "unit", "field": "UNIT", "value": "euro"}]}}
CODE = {"id": "coding_double", "tier": "hard", "prompt": "Write double(x) returning twice x, in a ```python block.",
        "reference": "```python\ndef double(x):\n    return 2 * x\n```",
        "wrong": ["def double(x):\n    return x\n", "def double(x):\n    return 2 * x or None\n"],
        "grader": {"kind": "kbtest", "answer_file": "answer.py", "extract": "python", "test": (
            "import kbtest as kb\n\nd = kb.func(kb.load('answer.py'), 'double')\n\n\n@kb.case\ndef two():\n"
            "    kb.eq(d(2), 4)\n\n\n@kb.case\ndef zero():\n    kb.eq(d(0), 0)\n\n\n@kb.case\ndef negative():\n"
            "    kb.eq(d(-3), -6)\n")}}


def write(root, category, entries, key="items"):
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{category}.yaml"
    path.write_text(f"# {CANARY}\n" + yaml.safe_dump({"category": category, key: entries}, sort_keys=False))
    return path


def test_a_broken_file_is_named_with_its_item_and_field(tmp_path):
    bad = dict(FIELDS, grader={"kind": "fields", "checks": [{"name": "sum", "op": "number", "value": 9}]})
    write(tmp_path, "basic", [bad])
    with pytest.raises(TaskFileError, match=r"basic\.yaml.*basic_totals\.grader\.fields\.checks\.0\.field"):
        load_categories(tmp_path)
    (tmp_path / "basic.yaml").write_text(yaml.safe_dump({"category": "basic", "items": [FIELDS]}))
    with pytest.raises(TaskFileError, match="canary"):
        load_categories(tmp_path)
    write(tmp_path, "basic", [dict(FIELDS, grader={"kind": "judge", "criteria": ["one criterion"] * 3})])
    with pytest.raises(TaskFileError, match="only reasoning, writing, research .* may be judged"):
        load_categories(tmp_path)
    # an item whose format instructions clash on purpose is judged in any chat category, and only judged
    write(tmp_path, "basic", [dict(FIELDS, format_conflict=True,
                                   grader={"kind": "judge", "criteria": ["one criterion"] * 3})])
    [(doc, _)] = load_categories(tmp_path)
    assert doc.items[0].format_conflict and doc.items[0].grader.kind == "judge"
    write(tmp_path, "basic", [dict(FIELDS, format_conflict=True)])
    with pytest.raises(TaskFileError, match="format_conflict item is graded by the judge"):
        load_categories(tmp_path)
    write(tmp_path, "basic", [FIELDS])
    write(tmp_path, "agentic", [FIELDS])
    with pytest.raises(TaskFileError, match="agentic.yaml.*worked by the agent"):
        load_categories(tmp_path)


def test_the_in_process_graders_score_what_the_reply_says():
    item = Item.model_validate(FIELDS)
    assert score_of(grade_text(item.grader, "**SUM:** 9.0\ncount: 2\nUnit: Euro.")) == 1.0
    assert [c.passed for c in grade_text(item.grader, "SUM: 9\nCOUNT: 2")] == [True, True, False]
    structured = Item.model_validate({
        "id": "so_person", "prompt": "p", "reference": "{}", "grader": {
            "kind": "structured", "schema": {"type": "object", "required": ["age"],
                                             "properties": {"age": {"type": "integer"}}},
            "checks": [{"name": "age", "path": "/age", "op": "number", "value": 41},
                       {"name": "tags", "path": "/tags", "op": "length", "value": 2}]}})
    got = grade_text(structured.grader, 'Here:\n```json\n{"age": 41, "tags": ["a", "b"]}\n```')
    assert [(c.name, c.passed) for c in got] == [("schema", True), ("age", True), ("tags", True)]
    got = grade_text(structured.grader, '{"age": "41"}')
    assert [c.passed for c in got] == [False, False, False]
    rules = Item.model_validate({"id": "instruction_x", "prompt": "p", "reference": "r", "grader": {
        "kind": "constraints", "checks": [
            {"name": "short", "rule": "words_between", "min": 3, "max": 6},
            {"name": "lower", "rule": "lowercase"}, {"name": "no_commas", "rule": "no_char", "text": ","},
            {"name": "two_bullets", "rule": "bullets", "min": 2, "max": 2},
            {"name": "ends", "rule": "ends_with", "text": "done"}]}})
    assert [c.passed for c in grade_text(rules.grader, "- a b\n- c done")] == [True, True, True, True, True]
    assert [c.passed for c in grade_text(rules.grader, "- A, b\n- c d e f g")] == [False, False, False, True, False]
    assert is_refusal("I am not able to do that.") and not is_refusal("SUM: 9\nCOUNT: 2")


def test_the_contract_catches_each_kind_of_broken_item(tmp_path):
    assert audit_item("basic", Item.model_validate(FIELDS), tmp_path / "a").problems == []
    assert audit_item("coding", Item.model_validate(CODE), tmp_path / "b").problems == []
    # a check counts as failable only when a plausible wrong reply fails it (the empty reply fails most for free)
    unfailable = {"id": "instruction_polite", "prompt": "Write one short line to a colleague.",
                  "reference": "see you at nine", "wrong": ["see you, at nine"], "grader": {
                      "kind": "constraints", "checks": [
                          {"name": "short", "rule": "words_between", "min": 2, "max": 6},
                          {"name": "no_commas", "rule": "no_char", "text": ","},
                          {"name": "no_apology", "rule": "not_contains", "text": "sorry"}]}}
    problems = audit_item("instruction", Item.model_validate(unfailable), tmp_path / "c").problems
    assert problems == ["no wrong reply fails short, no_apology: every check must be failed by a plausible wrong "
                        "reply"], problems
    unfailable["wrong"].append("sorry I am running a little late today")
    assert audit_item("instruction", Item.model_validate(unfailable), tmp_path / "c2").problems == []
    bad_ref = dict(FIELDS, reference="SUM: 10\nCOUNT: 2\nUNIT: euro")
    assert any("reference fails sum" in p for p in audit_item("basic", Item.model_validate(bad_ref),
                                                                tmp_path / "d").problems)
    leak = dict(FIELDS, id="basic_leak", prompt="The total is 19. Reply SUM: COUNT: UNIT:",
                grader={"kind": "fields", "checks": [{"name": "sum", "field": "SUM", "op": "number", "value": 19},
                                                     *FIELDS["grader"]["checks"][1:]]},
                reference="SUM: 19\nCOUNT: 2\nUNIT: euro")
    assert any("19" in p and "prompt" in p for p in audit_item("basic", Item.model_validate(leak),
                                                                tmp_path / "e").problems)
    slow = {**unfailable, "grader": {"kind": "constraints", "checks": [
        *unfailable["grader"]["checks"], {"name": "words", "rule": "regex", "text": r"^(\w+\s?)*$"}]}}
    assert any("exponential" in p for p in audit_item("instruction", Item.model_validate(slow),
                                                       tmp_path / "c3").problems)
    no_fix = dict(CODE, id="debugging_double")
    problems = audit_item("debugging", Item.model_validate(no_fix), tmp_path / "f").problems
    assert any("untouched" in p for p in problems)
    fixed_already = dict(no_fix, untouched=CODE["reference"])
    assert any("untouched code earns full marks" in p
               for p in audit_item("debugging", Item.model_validate(fixed_already), tmp_path / "g").problems)


JUDGED = {"id": "writing_note", "prompt": "Write a short thank-you note to the night shift.",
          "reference": "Thank you all for the careful work overnight.",
          "grader": {"kind": "judge", "criteria": ["It thanks the night shift.",  # 26 chars: 26 % 4 = 2 -> yes
                                                   "It stays under fifty words.",  # 27: 3 -> yes
                                                   "It names one concrete task done.",  # 32: 0 -> no
                                                   "It avoids any form of sarcasm."]}}  # 30: 2 -> yes


def test_the_judge_votes_three_times_shuffled_and_takes_the_per_criterion_median():
    item = Item.model_validate(JUDGED)
    orders = [vote_order(item.id, v, 4) for v in (1, 2, 3)]
    assert len({tuple(o) for o in orders}) > 1  # the criteria are shuffled per vote
    with ScriptedServer(persona="judge", port=0) as srv:
        checks, record = JudgePanel([Judge(srv.url, "judge-model")]).grade(item, [item.reference])
    assert [c.passed for c in checks] == [True, True, False, True]
    assert record["model"] == "judge-model" and len(record["fingerprint"]) == 16 and len(record["votes"]) == 3
    # vote by vote, by the persona's rule ((length + vote) % 4 in (0, 1)): criterion 1 (26 chars) no, yes, yes
    assert [0 in v["yes"] for v in record["votes"]] == [False, True, True]
    assert [v["order"] for v in record["votes"]] == orders
    assert majority([{0: True}, {0: False}, {0: False}], 1) == [False]


def test_without_a_judge_a_judged_item_is_pending_never_scored(tmp_path):
    write(tmp_path, "writing", [JUDGED])
    kind = CapabilityItems(root=tmp_path)
    [unit] = kind.units
    kept = {"replies.json": '{"replies": ["Thanks, night shift."]}'}
    v = kind.grade_kept(unit, kept, tmp_path / "w", None, None)
    assert v.outcome == "pending" and "no judge" in v.detail and "no judge" in v.output


def rows(model, item, category, tier, scores, outcome="pass", refusal=False):
    return [{"model": model, "item": item, "category": category, "tier": tier, "seed": i + 1, "score": s,
             "outcome": outcome if s is not None else "pending", "refusal": refusal, "duration_s": 1.0}
            for i, s in enumerate(scores)]


def test_scoring_follows_klbench_by_hand():
    data = (rows("m", "a1", "basic", "normal", [1.0, 0.5, 1.0])  # median 1.0
            + rows("m", "a2", "basic", "hard", [0.0, 0.0, 0.5])  # median 0.0
            + rows("m", "b1", "coding", "normal", [0.5, 0.5, 0.5])  # 0.5
            + rows("m", "b2", "coding", "normal", [0.0, 0.0, 0.0], refusal=True)  # a refusal
            + rows("m", "c1", "writing", "normal", [None, None, None]))  # no judge: not graded
    doc = score_model(data)
    # categories: basic (1.0 + 0.0) / 2 = 0.5; coding 0.5 (the refusal left out); writing absent
    assert doc["composite"] == 0.5 and doc["weights"] == {"basic": 0.5, "coding": 0.5}
    # usability over items, the refusal as 0: (1 + 0 + 0.5 + 0) / 4
    assert doc["usability"] == 0.375 and doc["refusals"] == 1 and doc["not_graded"] == ["c1"]
    assert doc["tiers"] == {"normal": 0.75, "hard": 0.0}  # normal: basic 1.0, coding 0.5
    assert round(rogan_gladen(0.6, 0.9, 0.8), 4) == 0.5714
    with pytest.raises(ValueError, match="no better than chance"):
        rogan_gladen(0.5, 0.5, 0.5)


def test_paired_tiers_and_the_judge_correction_by_hand(tmp_path):
    def items(scores):
        return item_scores([r for i, s in enumerate(scores) for r in rows("m", f"i{i}", "basic", "normal", [s])])

    top, near, low = items([1.0] * 10), items([1.0] * 9 + [0.0]), items([0.0] * 10)
    # top - near: nine 0s and one 1, whose interval reaches 0: one tier; top - low: 1 on every item: the next tier
    assert paired_tiers([top, near, low]) == [1, 1, 2]
    labels = ([{"judge": True, "human": True}] * 9 + [{"judge": False, "human": True}]
              + [{"judge": False, "human": False}] * 8 + [{"judge": True, "human": False}] * 2)
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in labels))
    judged = [{**r, "grader": "judge"} for r in rows("m", "w1", "writing", "normal", [1.0])
              + rows("m", "w2", "writing", "normal", [0.2])]
    got = judged_share(judged + rows("m", "b1", "basic", "normal", [0.0]), path)
    # raw: (1.0 + 0.2) / 2 = 0.6; sensitivity 9/10, specificity 8/10; (0.6 + 0.8 - 1) / (0.9 + 0.8 - 1) = 0.5714
    assert got["items"] == 2 and got["raw"] == pytest.approx(0.6) and got["corrected"] == pytest.approx(0.4 / 0.7)
    assert (got["sensitivity"], got["specificity"], got["labels"]) == (0.9, 0.8, 20)
    assert got["categories"]["writing"] == {k: got[k] for k in got["categories"]["writing"] if k != "rates"} | {
        "rates": "pooled"}  # no label names a category: each category takes the pooled rates

    # per judged category: writing's own labels (sensitivity 4/5, specificity 3/4); reasoning has only human yeses,
    # so it takes the pooled rates over all 31 labels (sensitivity 15/17, specificity 11/14)
    own = ([{"judge": True, "human": True, "category": "writing"}] * 4
           + [{"judge": False, "human": True, "category": "writing"}]
           + [{"judge": False, "human": False, "category": "writing"}] * 3
           + [{"judge": True, "human": False, "category": "writing"}]
           + [{"judge": True, "human": True, "category": "reasoning"}] * 2)
    path.write_text("".join(json.dumps(x) + "\n" for x in labels + own))
    reasoning = [{**r, "grader": "judge"} for r in rows("m", "r1", "reasoning", "normal", [0.8])]
    got = judged_share(judged + reasoning, path)
    w, r = got["categories"]["writing"], got["categories"]["reasoning"]
    assert (w["rates"], w["labels"], w["sensitivity"], w["specificity"]) == ("own", 9, 0.8, 0.75)
    assert w["raw"] == pytest.approx(0.6) and w["corrected"] == pytest.approx((0.6 + 0.75 - 1) / (0.8 + 0.75 - 1))
    assert (r["rates"], r["labels"]) == ("pooled", 31) and r["raw"] == pytest.approx(0.8)
    assert r["corrected"] == pytest.approx((0.8 + 11 / 14 - 1) / (15 / 17 + 11 / 14 - 1))
    assert got["items"] == 3 and got["raw"] == pytest.approx((1.0 + 0.2 + 0.8) / 3)
    path.write_text(json.dumps({"judge": True, "human": True, "category": 3}) + "\n")
    with pytest.raises(ValueError, match="line 1"):
        judged_share(judged, path)
