"""The oracles' budgets, never wall time: an in-process oracle over IN_PROCESS_BUDGET_S of the grading thread's CPU
time is over_budget (a wait that burns no CPU is not), a stdout_regex that reaches the bounded matcher's step limit
is over_budget, and the gate fails a pathological pattern (on the reference's output or on its adversarial texts)
instead of hanging. Each graded row stores oracle_ms and heap_peak_bytes in trial_results."""

import json
import time
import tracemalloc

import pytest

from kbench_dagster.cli import main
from kbench_dagster.commands.trials_report import strike_rows
from kbench_dagster.reporting.trial_stats import render_oracle, strike_stats
from kbench_dagster.store import ResultsStore
from sandbox.chatwork import trials as trials_kind
from sandbox.chatwork.trial_checks import gate_problems
from sandbox.chatwork.trials import ToolTrials, graded
from sandbox.servers.scripted import ScriptedServer
from task_defs.trials import grading
from task_defs.trials.grading import Answer, ShellRun, grade, reference_answer
from task_defs.trials.loader import TRIALS_DIR, Family, load_family
from task_defs.trials.models import Trial, TrialFamily

SHELL_TOOL = {"description": "Run a bash command.", "parameters": {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
LABEL = Trial.model_validate({
    "id": "mood", "messages": [{"role": "user", "content": "Happy or sad: 'what a day!'"}],
    "oracle": {"kind": "label", "labels": ["happy", "sad"], "answer": "happy"}})


def shell_trial(tid: str, pattern: str, prompt: str) -> Trial:
    return Trial.model_validate({
        "id": tid, "tools": ["run_shell"], "tool_specs": {"run_shell": SHELL_TOOL},
        "messages": [{"role": "user", "content": prompt}],
        "oracle": {"kind": "shell", "stdout_regex": pattern, "ran": ["printf"], "reference": "printf x"}})


def printed(stdout: str):
    """A shell runner that prints `stdout` and shows printf ran (no sandbox: what the oracle reads is the point)."""
    return lambda files, commands, read: ShellRun(stdout, 0, frozenset({"printf"}))


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_an_in_process_oracle_over_its_cpu_budget_is_over_budget(monkeypatch):
    right = Answer(text="happy")
    assert grade(LABEL, right).passed and 0 <= grade(LABEL, right).oracle_ms < 5
    label = grading._label
    monkeypatch.setattr(grading, "_label", lambda o, a: (burn(0.06), label(o, a))[1])
    v = grade(LABEL, right)
    assert (v.passed, v.score, v.cause) == (False, 0.0, "over_budget")
    assert v.oracle_ms >= 50 and "50 ms budget" in v.detail


def test_waiting_is_not_work_a_busy_machine_cannot_fail_an_answer(monkeypatch):
    label = grading._label
    monkeypatch.setattr(grading, "_label", lambda o, a: (time.sleep(0.12), label(o, a))[1])
    v = grade(LABEL, Answer(text="happy"))  # 120 ms of wall time, all of it waiting: not the oracle's CPU
    assert v.passed and v.oracle_ms < 50


def test_the_machine_kind_has_its_own_cpu_budget(monkeypatch):
    trial = next(u.trial for u in ToolTrials().units if u.trial.oracle.kind == "machine")
    right = reference_answer(trial)
    assert grade(trial, right).passed
    machine = grading._machine
    monkeypatch.setattr(grading, "_machine", lambda o, a: (burn(grading.MACHINE_BUDGET_S + 0.05), machine(o, a))[1])
    v = grade(trial, right)
    assert (v.passed, v.cause) == (False, "over_budget") and f"{1000 * grading.MACHINE_BUDGET_S:g} ms" in v.detail
    monkeypatch.setattr(grading, "_machine", lambda o, a: (time.sleep(0.6), machine(o, a))[1])
    assert grade(trial, right).passed  # waiting is not the oracle's work


def test_a_pattern_at_the_step_limit_is_over_budget_not_a_hang():
    trial = shell_trial("runs_of_a", r"^(a|aa)*c|^a{40}$", "Print forty a's with printf.")
    t = time.perf_counter()
    v = grade(trial, reference_answer(trial), printed("a" * 40))
    assert (v.passed, v.score, v.cause) == (False, 0.0, "over_budget")
    assert "matcher steps" in v.detail and time.perf_counter() - t < 10
    assert grade(trial, reference_answer(trial), printed("b")).cause == "wrong_output"  # cheap texts: a verdict


def test_the_gate_fails_a_pathological_pattern_and_does_not_hang(tmp_path):
    spec = TrialFamily(family="patterns", about="patterns under the gate", tools={"run_shell": SHELL_TOOL})
    ok = shell_trial("digits_fine", r"^\s*42\s*$", "Print 42 with printf.")
    exponential = shell_trial("digits_nested", r"^(\d+)+$", "Print the number 42 with printf.")
    at_reference = shell_trial("runs_of_a", r"^(a|aa)*c|^a{40}$", "Print forty a's with printf.")
    t = time.perf_counter()
    outputs = {"digits_fine": "42\n", "digits_nested": "42\n", "runs_of_a": "a" * 40}
    problems = []
    for trial in (ok, exponential, at_reference):  # each with its own printed output
        one = Family("patterns", tmp_path, spec, (trial,))
        problems += gate_problems(ToolTrials([one]), printed(outputs[trial.id]))
    assert time.perf_counter() - t < 30
    assert not [p for p in problems if p.startswith("digits_fine")]
    assert any(p.startswith("digits_nested: its stdout_regex is pathological") and "'7'" in p for p in problems)
    assert any(p.startswith("runs_of_a: its reference answer fails (over_budget") for p in problems)


def test_a_pattern_outside_the_subset_is_refused_where_it_is_written(tmp_path):
    folder = tmp_path / "looks"
    folder.mkdir()
    canary = next(line for line in (TRIALS_DIR / "shell" / "job.toml").read_text().splitlines() if "canary" in line)
    (folder / "job.toml").write_text(f'{canary}\nfamily = "looks"\nabout = "x"\n[tools.run_shell]\n'
                                     'description = "Run a bash command."\n[tools.run_shell.parameters]\n'
                                     'type = "object"\nrequired = ["command"]\n'
                                     '[tools.run_shell.parameters.properties.command]\ntype = "string"\n')
    item = shell_trial("behind", r"x1", "Print x1 with printf.").model_dump(mode="json", exclude_defaults=True)
    item["oracle"]["stdout_regex"] = r"(?<=x)1"
    (folder / "items.jsonl").write_text(json.dumps(item) + "\n")
    with pytest.raises(Exception) as refused:
        load_family(folder)
    said = str(refused.value)
    assert "items.jsonl" in said and "behind" in said and "stdout_regex" in said and "lookbehind" in said


def test_the_heap_mark_is_the_rows_own_and_another_trace_is_left_alone():
    right = Answer(text="happy")
    v, peak = graded(LABEL, right, None)
    assert v.passed and isinstance(peak, int) and peak > 0 and not tracemalloc.is_tracing()
    assert graded(LABEL, right, None, heap=False)[1] is None
    trial = shell_trial("big_output", r"^x$", "Print x with printf.")

    def runner(files, commands, read):  # what the sandbox's side allocates is not traced as the oracle's
        assert not tracemalloc.is_tracing()
        return ShellRun("x\n", 0, frozenset({"printf"}))

    v, peak = graded(trial, reference_answer(trial), runner)
    assert v.passed and peak > 0 and not tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        assert graded(LABEL, right, None)[1] is None and tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()


def test_graded_rows_store_oracle_ms_and_heap_peak_bytes(tmp_path, monkeypatch):
    only = [load_family(TRIALS_DIR / name) for name in ("select", "shell")]  # not the families being written now
    monkeypatch.setattr(trials_kind, "load_families", lambda: only)
    db = tmp_path / "t.duckdb"
    with ScriptedServer("oracle", suite="trials", port=0) as srv:
        for run_id, heap in (("traced", ["--heap"]), ("plain", [])):
            assert main(["trials", "run", str(tmp_path / f"{run_id}.json"), "--url", srv.url, "--only",
                         "select,shell", "--limit", "2", "--run-id", run_id, "--runs", str(tmp_path / "runs"),
                         "--work", str(tmp_path / "work"), "--db", str(db), *heap]) == 0
    _, rows = ResultsStore(db).query("SELECT run_id, oracle, outcome, oracle_ms, heap_peak_bytes FROM trial_results "
                                     "ORDER BY run_id")
    assert len(rows) == 8 and {r[1] for r in rows} == {"calls_exact", "shell"} and {r[2] for r in rows} == {"pass"}
    assert all(r[3] is not None and 0 <= r[3] < 2000 for r in rows)  # CPU ms: a shell trial's is our side's only
    assert all(isinstance(r[4], int) and r[4] > 0 for r in rows if r[0] == "traced")
    assert all(r[4] is None for r in rows if r[0] == "plain")  # not asked: not traced, NULL
    store = ResultsStore(db)
    for run_id in ("traced", "plain"):  # `kbench trials stats` shows what grading cost, from the same rows
        o = strike_stats(strike_rows(store, run_id))["oracle"]
        ms = sorted(r[3] for r in rows if r[0] == run_id)
        assert (o["rows"], o["max_ms"], o["median_ms"]) == (4, ms[-1], ms[2])
        heap = [r[4] for r in rows if r[0] == run_id and r[4] is not None]
        assert o["heap_max_bytes"] == (max(heap) if heap else None)
        assert ("heap not measured" in render_oracle(o)) == (run_id == "plain")
