"""The hidden-test judge's per-case verdict, read from its nonce'd lines only (rule 2 of the judging boundary).

The judge (task_defs/harness/kbtest.py) ends by writing, itself, `KBTEST-CASES <nonce> <json {case: verdict}>`
and then `KBTEST-RESULT <nonce> <outcome>`. The `PASS name` lines above them are for people: the agent's processes
share that output and can print any of them, but never the nonce. So a case counts only by the judge's own line,
and only when its result line came too: a judge killed before it wrote one has given no verdict on any case.
"""

from __future__ import annotations

from sandbox.judge.parse import Refused, bounded_json

CASE_VERDICTS = ("pass", "fail", "crash", "timeout")
RESULTS = ("pass", "wrong", "crash", "timeout")
MAX_CASES_BYTES = 64 << 10  # far above any hidden test's case names; the line is the judge's, capped all the same


def judge_cases(output: str, nonce: str) -> dict[str, str]:
    """Case name -> pass | fail | crash | timeout, as the judge holding `nonce` reported them; empty when it wrote
    no result line, no case line, or a case line that is not its form (no case is credited then)."""
    result_marker, cases_marker = f"KBTEST-RESULT {nonce} ", f"KBTEST-CASES {nonce} "
    lines = output.splitlines()
    if not any(ln.startswith(result_marker) and ln[len(result_marker):].strip() in RESULTS for ln in lines):
        return {}
    said = [ln[len(cases_marker):] for ln in lines if ln.startswith(cases_marker)]
    if not said:
        return {}
    try:
        cases = bounded_json(said[-1], max_depth=1, max_bytes=MAX_CASES_BYTES)
    except Refused:
        return {}
    if not isinstance(cases, dict) or not all(isinstance(k, str) and v in CASE_VERDICTS for k, v in cases.items()):
        return {}
    return cases
