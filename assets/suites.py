"""The task suites as an asset, guarded by a blocking check that proves every hidden test."""

from __future__ import annotations

import dagster as dg

from kbench_dagster.resources import SandboxSettings, SuiteSource
from sandbox.tasks.validation import validate_tasks


def _preview(suites) -> str:
    rows = ["| suite | tasks | programming | repair | terminal | chain | fingerprint |",
            "|---|---|---|---|---|---|---|"]
    for s in suites:
        n = {c: sum(t.category == c for t in s.tasks) for c in ("programming", "repair", "terminal", "chain")}
        rows.append(f"| {s.name} | {len(s.tasks)} | {n['programming']} | {n['repair']} | {n['terminal']} | "
                    f"{n['chain']} | `{s.fingerprint[:16]}` |")
    return "\n".join(rows)


@dg.asset(group_name="suites")
def task_suites(suite_source: SuiteSource) -> dg.MaterializeResult:
    """The task suites: every task's prompt, setup, hidden test and reference, fingerprinted."""
    suites = suite_source.load()
    version = "+".join(f"{s.name}:{s.fingerprint}" for s in suites)
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "suites": len(suites),
            "tasks": sum(len(s.tasks) for s in suites),
            "fingerprints": {s.name: s.fingerprint for s in suites},
            "preview": dg.MetadataValue.md(_preview(suites)),
        },
    )


@dg.asset_check(asset=task_suites, blocking=True)
def hidden_tests_are_proven(suite_source: SuiteSource, sandbox: SandboxSettings) -> dg.AssetCheckResult:
    """Every hidden test fails on the untouched folder and every mutant, passes the reference and every alternative."""
    failed, skipped, ok, killed, mutants = [], [], 0, 0, 0
    for suite in suite_source.load():
        for v in validate_tasks(list(suite.tasks), sandbox.work_path(), sandbox.isolation_config(),
                                sandbox.validate_workers):
            killed, mutants = killed + v.mutants_killed[0], mutants + v.mutants_killed[1]
            if v.status == "fail":
                failed.append(f"{suite.name}/{v.task_id}: {v.reason.splitlines()[0]}")
            elif v.status == "skipped":
                skipped.append(f"{suite.name}/{v.task_id}: {v.reason}")
            else:
                ok += 1
    return dg.AssetCheckResult(
        passed=not failed,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={"ok": ok, "failed": len(failed), "skipped": len(skipped), "mutants_killed": killed,
                  "mutants": mutants,
                  "failures": dg.MetadataValue.md("\n".join(f"- {f}" for f in failed) or "none"),
                  "skips": dg.MetadataValue.md("\n".join(f"- {s}" for s in skipped) or "none")},
    )
