"""task_defs, sandbox and gpu never import dagster: they must stay usable without the orchestrator."""

import ast

from conftest import REPO

PURE = ["task_defs", "sandbox", "gpu"]


def imported_modules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_pure_packages_never_import_dagster():
    scanned = 0
    offenders = []
    for pkg in PURE:
        for path in (REPO / pkg).rglob("*.py"):
            if "suites" in path.parts:
                continue  # task files are data run in the sandbox, not package code
            scanned += 1
            for mod in imported_modules(path):
                if mod == "dagster" or mod.startswith(("dagster.", "dagster_")):
                    offenders.append(f"{path.relative_to(REPO)} imports {mod}")
    assert scanned >= 10, "the scan found too few files: is the layout intact?"
    assert offenders == []


def test_scanner_catches_a_dagster_import(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("import os\nfrom dagster import asset\nimport dagster_duckdb\n")
    assert set(imported_modules(f)) == {"os", "dagster", "dagster_duckdb"}
