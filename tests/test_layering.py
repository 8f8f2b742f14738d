"""The layout's rules: task_defs, sandbox and gpu never import dagster (they must stay usable without the
orchestrator), and no module grows past 400 lines."""

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


MAX_LINES = 400
LONGER = {"task_defs/harness/kbtest.py"}  # one file the task sandboxes import whole, with nothing else beside it


def test_no_module_is_longer_than_400_lines():
    """Modules stay small and named for what they hold; the task suites' own files are data, not modules here."""
    roots = ["kbench_dagster", "assets", "task_defs", "sandbox", "gpu", "tests", "bench"]
    long = {}
    for root in roots:
        for path in (REPO / root).rglob("*.py"):
            rel = path.relative_to(REPO).as_posix()
            if "suites" in path.parts or "__pycache__" in path.parts or rel in LONGER:
                continue
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > MAX_LINES:
                long[rel] = n
    assert long == {}, f"split these by what they hold: {long}"
