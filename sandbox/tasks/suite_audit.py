"""The suite's design contract, checked task by task and across the suite (`kbench audit`).

Per task: it loads (the canary in every file, no broken field), the untouched folder fails, the reference passes,
every shipped mutant fails, every correct alternative passes, the task ships its quota of mutants (and an
alternative for programming tasks), at least three cases fail independently, and the expected answer is not given
away. Across the suite: no two prompts are the same after normalising case, whitespace and punctuation. The rules
are stated in task_defs/AUTHORING.md ("The suite contract"); every violation names the file it is about.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.isolation.bwrap import IsolationConfig
from sandbox.tasks.grading import missing_requirements
from sandbox.tasks.validation import Validation, apply_reference, prepare_workdir, validate_tasks
from task_defs.errors import TaskFileError
from task_defs.loader import IGNORED, load_task
from task_defs.models import Task

MUTANT_QUOTA = {"programming": 3, "repair": 3, "terminal": 2, "chain": 2}
ALTERNATIVE_QUOTA = {"programming": 1}
INDEPENDENT_CASES = 3
ANSWER_CAP = 64 * 1024
SHORT_ANSWER = 3  # answers shorter than this are checked in the prompt only: "7" occurs in any data file


@dataclass(frozen=True)
class Violation:
    path: str  # the file (or folder) the violation is about
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.rule}: {self.message}"


@dataclass
class AuditReport:
    tasks: list[Task]
    violations: list[Violation] = field(default_factory=list)
    validations: list[Validation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def coverage(self) -> list[tuple[str, str, int, int, int]]:
        """(category, tier, tasks, mutants, alternatives), one row per pair present in the suite."""
        rows: dict[tuple[str, str], list[int]] = {}
        for t in self.tasks:
            row = rows.setdefault((t.category, t.tier), [0, 0, 0])
            row[0] += 1
            row[1] += len(t.mutant_dirs)
            row[2] += len(t.alternative_dirs)
        return [(c, tier, *counts) for (c, tier), counts in sorted(rows.items())]


def normalise_prompt(text: str) -> str:
    """Lower case, punctuation dropped, whitespace collapsed: two prompts equal after this are duplicates."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def independent_cases(v: Validation) -> set[str]:
    """Cases failed by some shipped mutant that still passes at least one other case of the test."""
    found: set[str] = set()
    for m in v.of_kind("mutant"):
        failed = m.failed_cases
        if failed and len(failed) < len(m.cases):
            found |= failed
    return found


def _load_each(root: Path, only: set[str] | None) -> tuple[list[Task], list[Violation]]:
    tasks, violations = [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in IGNORED):
        if only is not None and folder.name not in only:
            continue
        try:
            task = load_task(folder)
        except TaskFileError as exc:
            violations.append(Violation(exc.path, "task file" if exc.field != "canary" else "canary", exc.problem))
            continue
        if task.id != folder.name:
            violations.append(Violation(str(folder / "task.toml"), "task file",
                                        f"id {task.id!r} is not the folder name"))
            continue
        tasks.append(task)
    return tasks, violations


def _quota_violations(task: Task) -> list[Violation]:
    out = []
    need, have = MUTANT_QUOTA[task.category], len(task.mutant_dirs)
    if have < need:
        out.append(Violation(str(task.folder / "mutants"), "mutants",
                             f"{task.category} tasks ship at least {need} mutants, this one has {have}"))
    need, have = ALTERNATIVE_QUOTA.get(task.category, 0), len(task.alternative_dirs)
    if have < need:
        out.append(Violation(str(task.folder / "alternatives"), "alternatives",
                             f"{task.category} tasks ship at least {need} correct alternative, this one has {have}"))
    return out


def _validation_violations(task: Task, v: Validation) -> list[Violation]:
    test = str(task.folder / task.test)
    if v.status == "skipped":
        return []
    out = []
    for variant in v.variants:
        if variant.as_expected:
            continue
        where = {"untouched": test, "reference": str(task.solution_dir)}.get(
            variant.kind, str(task.folder / f"{variant.kind}s" / variant.name))
        what = {"untouched": "the untouched folder passes", "reference": f"the reference gets {variant.grade.outcome}",
                "mutant": f"mutant {variant.name} passes ({variant.note})",
                "alternative": f"correct alternative {variant.name} gets {variant.grade.outcome} ({variant.note})"}
        out.append(Violation(where, variant.kind, what[variant.kind]))
    if not v.variants:  # it could not even be prepared
        out.append(Violation(str(task.folder), "validate", v.reason.splitlines()[0] if v.reason else "not validated"))
    reference = next((x for x in v.variants if x.kind == "reference"), None)
    cases = len(reference.cases) if reference else 0
    independent = independent_cases(v)
    if reference and len(independent) < INDEPENDENT_CASES:
        out.append(Violation(test, "independent cases",
                             f"{len(independent)} of {cases} cases fail on their own under some shipped mutant "
                             f"({', '.join(sorted(independent)) or 'none'}); at least {INDEPENDENT_CASES} must"))
    return out


def _words_in(needle: str, hay: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(needle) + r"(?![\w.])", hay) is not None


def reference_answer(task: Task, work: Path, cfg: IsolationConfig | None) -> str | None:
    """The answer file the reference solution leaves behind (None for tasks without an answer file)."""
    if not task.answer or missing_requirements(task):
        return None
    folder = prepare_workdir(task, work / f"answer-{task.id}", cfg)
    try:
        apply_reference(task, folder, cfg)
        target = folder / task.answer
        if target.is_symlink() or not target.is_file():
            return None
        with open(target, "rb") as fh:
            return fh.read(ANSWER_CAP).decode("utf-8", "replace")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def answer_violations(task: Task, answer: str) -> list[Violation]:
    """The expected value may not appear in the prompt, nor as a whole line (or block) of a setup file."""
    want = " ".join(answer.split())
    if not want:
        return []
    out = []
    prompt = " ".join(" ".join(task.all_prompts).split())
    if _words_in(want, prompt):
        out.append(Violation(str(task.folder / "task.toml"), "answer in prompt",
                             f"the expected answer {want[:60]!r} appears in the prompt"))
    if len(want) < SHORT_ANSWER or not task.setup_dir.is_dir():
        return out
    lines = [ln.strip() for ln in answer.strip().splitlines()]
    for f in sorted(p for p in task.setup_dir.rglob("*") if p.is_file() and not p.is_symlink()):
        text = f.read_bytes()[:4 * 1024 * 1024].decode("utf-8", "replace")
        setup_lines = [ln.strip() for ln in text.splitlines()]
        as_line = len(lines) == 1 and lines[0] in setup_lines
        as_block = len(lines) > 1 and "\n".join(lines) in "\n".join(setup_lines)
        if as_line or as_block:
            out.append(Violation(str(f), "answer in setup", f"a setup file holds the expected answer {want[:60]!r}"
                                                           " as a line of its own"))
    return out


def duplicate_prompts(tasks: list[Task]) -> list[Violation]:
    """Every task whose prompt another task also has, after normalising case, whitespace and punctuation."""
    holders: dict[str, list[Task]] = {}
    for t in tasks:
        for key in {normalise_prompt(p) for p in t.all_prompts}:
            holders.setdefault(key, []).append(t)
    out = []
    for group in holders.values():
        for t in group:
            others = sorted(o.id for o in group if o is not t)
            if others:
                out.append(Violation(str(t.folder / "task.toml"), "duplicate prompt",
                                     f"the same prompt as {', '.join(others)} after normalising case, whitespace "
                                     "and punctuation"))
    return out


def audit_suite(root: Path, work_base: Path, cfg: IsolationConfig | None = None, workers: int = 2,
                only: set[str] | None = None, on_result=None) -> AuditReport:
    """Every rule of the contract over the suite at `root` (or only the task ids in `only`)."""
    tasks, violations = _load_each(Path(root), only)
    report = AuditReport(tasks, violations)
    for t in tasks:
        report.violations += _quota_violations(t)
    report.violations += duplicate_prompts(tasks)
    report.validations = validate_tasks(tasks, work_base, cfg, workers, on_result=on_result)
    by_id = {t.id: t for t in tasks}
    for v in report.validations:
        report.violations += _validation_violations(by_id[v.task_id], v)
    answers = Path(tempfile.mkdtemp(prefix="audit-answers-", dir=work_base))
    answers.chmod(0o755)  # the sandbox user must reach the folders inside
    try:
        for t in tasks:
            answer = reference_answer(t, answers, cfg)
            if answer is not None:
                report.violations += answer_violations(t, answer)
    finally:
        shutil.rmtree(answers, ignore_errors=True)
    return report

