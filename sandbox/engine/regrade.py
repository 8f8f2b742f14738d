"""Grading stored attempts again: when a hidden test changes, the final files an agent left are graded by today's
test, without any agent session; a run that deferred its grading (kernels) is graded the same way. The verdict goes
into the record (regrading.json in a folder, a regrading line in a ledger), which every reader applies.

A chat attempt our own code failed on (a harness error, recorded as infra) is graded too: its recorded replies are
played back through the kind (sandbox/engine/replayed_chat.py), so a reply an older parser broke on gets the
verdict it earns, and the infra record is replaced. One that cannot be played back keeps its record and is named.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.engine.attempt_ledger import kept_files
from sandbox.engine.attempt_reader import AttemptRecord, records_of
from sandbox.engine.kinds import WorkKind
from sandbox.engine.replayed_chat import replay_kept
from sandbox.engine.stops import DiskFull
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.diskspace import ran_full
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import fresh_dir
from task_defs.vocabulary import JUDGE_FAILED, PENDING, SCORED

UNGRADED = (PENDING, JUDGE_FAILED)  # no verdict yet: a regrade grades them (a failed judge is asked again)


@dataclass
class RegradeSummary:
    regraded: list[str] = field(default_factory=list)  # attempt keys graded again now
    current: int = 0  # already graded by this suite version
    unscored: int = 0  # infra or skipped: there are no final files to grade
    gone: list[str] = field(default_factory=list)  # tasks no longer in the suite: their verdict stays as it was
    unrepaired: list[str] = field(default_factory=list)  # harness errors whose replies could not be graded: why
    # tasks graded step by step during their run (sandbox/tasks/steps.py): their final files alone cannot be graded
    # again, so their verdict stays as it was
    stepwise: list[str] = field(default_factory=list)


def is_stale(result: dict, kind: WorkKind) -> bool:
    """Not graded yet, or scored by another version of the suite."""
    return result["outcome"] in UNGRADED or (result["outcome"] in SCORED
                                            and result["suite_fingerprint"] != kind.fingerprint)


def is_repairable(result: dict, kind: WorkKind) -> bool:
    """A chat attempt with no verdict because our own code failed on it: its recorded replies can be graded."""
    return result["outcome"] == "infra" and bool(result.get("harness_error")) and not kind.runs_agent


def regrade_record(kind: WorkKind, record: AttemptRecord, work_root: Path, cfg: IsolationConfig,
                   replay: bool = False) -> dict:
    """Grade one record's final files as the kind grades them; the regrading is written into the record. `replay`:
    the kept files are rebuilt from the recorded replies first, and the verdict replaces a harness error's infra."""
    result = record.result()
    task = kind.get(result["task"])
    work = fresh_dir(Path(work_root) / "regrade" / result["run_id"] / result["condition"] / task.id
                     / f"s{result['seed']}")
    record.lay_files(work)
    if kind.runs_agent:
        out = work.with_name(work.name + ".tests.txt")
        g = kind.grade(task, work, out, cfg, None)
        tests = out.read_text(encoding="utf-8", errors="replace") if out.is_file() else ""
        out.unlink(missing_ok=True)
    else:  # the replies as the kind kept them; the folder becomes its scratch
        kept, _ = kept_files(work)
        remove_tree(work)
        if replay:
            kept = replay_kept(kind, task, record.events(), result["seed"])
        g = kind.grade_kept(task, kept, work, cfg, None)
        tests = g.output
    full = ran_full({"work": work, "runs": record.home})
    remove_tree(work, ignore_errors=True)  # agent code ran in the regrade too: any tree can be there
    if full:  # the verdict cannot be trusted: the record keeps the grading it had
        raise DiskFull(f"{full} (regrading {task.id}); free space and regrade again")
    regrading = {"outcome": g.outcome, "detail": g.detail, "test_duration_s": round(g.duration_s, 3),
                 "suite_fingerprint": kind.fingerprint, "graded_at": time.strftime("%Y-%m-%dT%H:%M:%S"), **g.extra,
                 **({"infra": False, "infra_error": None, "harness_error": None} if replay else {})}
    record.add_regrading(regrading, tests, kind.fingerprint)
    return regrading


def regrade_run(run_dir: Path, kind: WorkKind, work_root: Path, cfg: IsolationConfig,
                condition: str | None = None, seed: int | None = None, on_regraded=None) -> RegradeSummary:
    """Grade every stale attempt of a run (or of one of its cells) again."""
    summary = RegradeSummary()
    for record in records_of(run_dir):
        r = record.result()
        if (condition and r["condition"] != condition) or (seed is not None and r["seed"] != seed):
            continue
        if is_repairable(r, kind) and r["task"] in {t.id for t in kind.units}:
            _repair(kind, record, work_root, cfg, summary, on_regraded)
        elif r["outcome"] not in SCORED and r["outcome"] not in UNGRADED:
            summary.unscored += 1
        elif not is_stale(r, kind):
            summary.current += 1
        elif r["task"] not in {t.id for t in kind.units}:
            summary.gone.append(r["task"])
        elif getattr(kind.get(r["task"]), "steps", None):
            summary.stepwise.append(r["task"])
        else:
            g = regrade_record(kind, record, work_root, cfg)
            summary.regraded.append(f"{r['condition']}/{r['task']}/s{r['seed']}")
            if on_regraded:
                on_regraded(r, g)
    return summary


def _repair(kind: WorkKind, record: AttemptRecord, work_root: Path, cfg: IsolationConfig, summary: RegradeSummary,
            on_regraded) -> None:
    """Grade a harness error's recorded replies. Whatever keeps that from working (the record lacks a reply the
    kind asks for, or our code fails again) leaves the record as it was and says so: one attempt never stops the
    regrade of a run."""
    r = record.result()
    where = f"{r['condition']}/{r['task']}/s{r['seed']}"
    try:
        g = regrade_record(kind, record, work_root, cfg, replay=True)
    except DiskFull:
        raise
    except Exception as exc:  # noqa: BLE001 - the record keeps its infra result, and the summary says why
        summary.unscored += 1
        summary.unrepaired.append(f"{where}: {type(exc).__name__}: {exc}"[:300])
        return
    summary.regraded.append(where)
    if on_regraded:
        on_regraded(r, g)
