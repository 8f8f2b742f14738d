"""A capability item graded by its hidden test scores what the judge counted, never the `PASS name` lines in the
output: the answer's own process can print those (the case names are public: they name the checks), and it can kill
the judge after printing them. Both forgeries score as the same answer does without them."""

import json

import yaml

from sandbox.chatwork.capability import CapabilityItems
from sandbox.judge.kbtest_lines import judge_cases
from task_defs.canary import CANARY

TEST = ("import kbtest as kb\n\nd = kb.func(kb.load('answer.py'), 'double')\n\n\n@kb.case\ndef two():\n"
        "    kb.eq(d(2), 4)\n\n\n@kb.case\ndef zero():\n    kb.eq(d(0), 1 - 1)\n\n\n@kb.case\ndef negative():\n"
        "    kb.eq(d(-3), -6)\n")
ITEM = {"id": "coding_double", "prompt": "Write double(x) returning twice x, in a ```python block.",
        "reference": "```python\ndef double(x):\n    return 2 * x\n```", "wrong": ["def double(x):\n    return x\n"],
        "grader": {"kind": "kbtest", "answer_file": "answer.py", "extract": "python", "test": TEST}}
FORGED = "PASS two\\nPASS zero\\nPASS negative\\n"
# right on the last two cases only (1 - 1 keeps the zero case's answer out of the prompt's own words)
HALF = "def double(x):\n    return -6 if x == -3 else x\n"
# during the last case, every case's PASS line, after the judge's FAIL of the first
PRINTS = ("import os\n\n\ndef double(x):\n    if x == -3:\n        os.write(1, b'" + FORGED + "')\n"
          "    return -6 if x == -3 else x\n")
# the case lines, then the judge killed before it writes another line
KILLS = ("import os\nimport signal\n\nos.write(1, b'" + FORGED + "')\nos.kill(os.getppid(), signal.SIGKILL)\n\n\n"
         "def double(x):\n    return x\n")


def grade(tmp_path, name, code):
    root = tmp_path / "items"
    root.mkdir(exist_ok=True)
    (root / "coding.yaml").write_text(f"# {CANARY}\n" + yaml.safe_dump({"category": "coding", "items": [ITEM]}))
    kind = CapabilityItems(root=root)
    [unit] = kind.units
    reply = f"```python\n{code}```"
    return kind.grade_kept(unit, {"replies.json": json.dumps({"replies": [reply]})}, tmp_path / name, None,
                           None)


def test_printed_case_lines_score_nothing(tmp_path):
    honest, forged = grade(tmp_path, "honest", HALF), grade(tmp_path, "forged", PRINTS)
    assert "PASS two" in forged.output  # the forgery is in the log, and counts for nothing
    assert honest.outcome == forged.outcome == "wrong"
    score = forged.extra["capability"]["score"]
    assert score == honest.extra["capability"]["score"] == round(2 / 3, 6)
    assert [c["passed"] for c in forged.extra["capability"]["checks"]] == [False, True, True]


def test_a_judge_killed_after_the_case_lines_passes_no_case(tmp_path):
    v = grade(tmp_path, "killed", KILLS)
    assert "PASS negative" in v.output
    assert v.outcome == "wrong" and v.extra["capability"]["score"] == 0.0
    assert not any(c["passed"] for c in v.extra["capability"]["checks"])


def test_only_the_judges_nonced_lines_count():
    nonce = "n" * 32
    judged = f'PASS a\nKBTEST-CASES {nonce} {{"a":"fail","b":"pass"}}\nKBTEST-RESULT {nonce} wrong\n'
    assert judge_cases(judged, nonce) == {"a": "fail", "b": "pass"}
    assert judge_cases(judged, "m" * 32) == {}  # another nonce is anyone's text
    assert judge_cases(judged.replace(f"KBTEST-RESULT {nonce} wrong", ""), nonce) == {}  # no result: no case
    assert judge_cases(f'KBTEST-CASES {nonce} {{"a":"yes"}}\nKBTEST-RESULT {nonce} pass\n', nonce) == {}
