"""Kernels through the one run loop: `kbench run --suite kernels` has the agent write a kernel task of every
family (each task's own gate is proven in test_gpu_grader.py), the kernel grader scores each on the CPU path, rows
land in DuckDB and the board gets its kernels pages."""

import re

import pytest
from test_boards import CHROMIUM, chromium_dom

from gpu.loader import load_kernel_suite
from kbench_dagster.cli import main
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore
from sandbox.servers.scripted import ScriptedServer

# one task a family, the first by id: the run loop does the same for every task, the gradings cost a process each
SLICE = sorted({t.family: t.id for t in reversed(load_kernel_suite())}.values())


@pytest.fixture(scope="module")
def kernel_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("kernels")
    db = root / "k.duckdb"
    with ScriptedServer(persona="oracle", suite="kernels", port=0) as srv:
        rc = main(["--suite", "kernels", "run", "kern", "--model", "scripted-oracle", "--url", srv.url,
                   "--agent", "builtin", "--conds", "base", "--tasks", ",".join(SLICE), "--runs", str(root / "runs"),
                   "--work", str(root / "work"), "--db", str(db)])
    assert rc == 0
    return root, db


def test_a_kernel_task_of_every_family_is_written_by_the_agent_and_graded(kernel_run):
    root, db = kernel_run
    _, rows = ResultsStore(db).query("SELECT task, outcome, status, correct, score > 0, device_kind, reason, "
                                     "suite_fingerprint FROM kernel_gradings ORDER BY task")
    assert [r[0] for r in rows] == SLICE and {r[5] for r in rows} == {"cpu"} and len({r[7] for r in rows}) == 1
    # The oracle's kernel calls the task's own reference: correct everywhere, but where that reference uses an
    # operator the task forbids (a library matmul, sum, topk, ...) the grader rejects it, naming the operator.
    # A speed flag (timing on a busy machine can make a kernel look implausibly fast) never changes the outcome.
    passed = [r[0] for r in rows if r[1] == "pass" and r[2] in ("ok", "flagged") and r[3] is True and r[4] is True]
    rejected = {r[0]: r[6] for r in rows if (r[1], r[2]) == ("wrong", "cheat_rejected")}
    assert len(passed) + len(rejected) == len(SLICE) and len(passed) >= len(SLICE) // 2, rows
    forbidden = {t.id: t.forbidden_ops for t in load_kernel_suite()}
    for task, reason in rejected.items():
        assert "forbidden operators called: aten::" in reason and forbidden[task], (task, reason)
    # the agent tasks' tables hold none of it: a kernel never mixes into their pass@1
    assert ResultsStore(db).query("SELECT count(*) FROM attempts")[1] == [(0,)]
    _, runs = ResultsStore(db).query("SELECT attempts, infra_failures FROM runs")
    assert runs == [(len(SLICE), 0)]
    # the kernel the agent left is in the record, with the grader's verdict as evidence
    record = root / "runs" / "kern" / "base" / passed[0] / "s1"
    assert (record / "workdir" / "kernel.py").read_text().startswith("from reference import reference")
    assert re.search(r'"status": "(ok|flagged)"', (record / "tests.txt").read_text())


def test_deferred_grading_is_pending_until_regraded(tmp_path, capsys):
    db = tmp_path / "d.duckdb"
    with ScriptedServer(persona="oracle", suite="kernels", port=0) as srv:
        assert main(["--suite", "kernels", "run", "later", "--model", "scripted-oracle", "--url", srv.url,
                     "--agent", "builtin", "--conds", "base", "--tasks", "softmax_fp32,rmsnorm_bf16",
                     "--defer-grading", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(db)]) == 0
    store = ResultsStore(db)
    assert store.query("SELECT task, outcome, status FROM kernel_gradings ORDER BY task")[1] == [
        ("rmsnorm_bf16", "pending", None), ("softmax_fp32", "pending", None)]
    capsys.readouterr()
    assert main(["regrade", "later", "--runs", str(tmp_path / "runs"), "--db", str(db),
                 "--work", str(tmp_path / "work")]) == 0
    assert "later: regraded 2" in capsys.readouterr().out
    assert store.query("SELECT task, outcome FROM kernel_gradings ORDER BY task")[1] == [
        ("rmsnorm_bf16", "pass"), ("softmax_fp32", "pass")]


def test_the_board_has_a_kernels_page_per_model(kernel_run, tmp_path):
    _, db = kernel_run
    index = build_board(ResultsStore(db), tmp_path / "board")
    listing = (index.parent / "kernels.html").read_text()
    href = re.search(r"href='(kernels/[^']+\.html)'>scripted-oracle<", listing).group(1)
    text = (index.parent / href).read_text()
    _, ok = ResultsStore(db).query("SELECT count(*) FROM kernel_gradings WHERE outcome = 'pass'")
    assert f"{ok[0][0]}/{len(SLICE)}" in listing and text.count("<td>1/1 (100") == ok[0][0]
    assert re.search(r"<td>ok</td>|<th>ok</th>", text) and "GB/s" in text and "TFLOP/s" in text
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (the set-up installs Debian's chromium)")
    dom = chromium_dom((index.parent / href).as_uri(), tmp_path / "profile")
    assert "Grader statuses" in dom and dom.count("<td>1/1 (100") == ok[0][0]
