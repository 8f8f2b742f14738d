"""The registry of kinds (sandbox/engine/registry.py) is the one place that picks a kind by its name: no code
elsewhere compares a kind's name, each kind's card names a table the store has, and a suite name nobody claims is a
suite of agent tasks."""

import ast
import sys

import pytest
from conftest import REPO

from kbench_dagster.store_schema import all_tables
from sandbox.engine import registry
from sandbox.engine.kinds import AgentTasks

PACKAGES = ("kbench_dagster", "assets", "task_defs", "sandbox", "gpu")
REGISTRY = "sandbox/engine/registry.py"


def kind_names() -> set[str]:
    names = set(registry._MODULES)
    return names | {n + "-" for n in names}


def _strings(node) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def name_checks(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every comparison with a kind's name: ==, !=, in, not in, and str.startswith/endswith."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                found += [(node.lineno, s) for s in _strings(side) if s in names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith", "removeprefix")):
            found += [(node.lineno, s) for a in node.args for s in _strings(a) if s in names]
    return found


def test_no_code_outside_the_registry_and_a_kinds_own_module_compares_a_kinds_name():
    names = kind_names()
    own = {name: registry._MODULES[name].replace(".", "/") + ".py" for name in registry._MODULES}
    scanned, offenders = 0, []
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if "suites" in path.parts or rel == REGISTRY:
                continue  # task files are data run in the sandbox
            scanned += 1
            for line, name in name_checks(path.read_text(), names):
                if own.get(name.rstrip("-")) != rel:
                    offenders.append(f"{rel}:{line} compares the kind name {name!r}: ask sandbox/engine/registry.py")
    assert scanned >= 100, "the scan found too few files: is the layout intact?"
    assert offenders == []


def test_the_scan_catches_each_form_of_a_name_check():
    src = ('if suite == "kernels": pass\n'
           'if kind in ("textjobs", "x"): pass\n'
           'if name.startswith("breakdown-"): pass\n'
           'ok = suite == "kbench"\n')
    assert name_checks(src, kind_names()) == [(1, "kernels"), (2, "textjobs"), (3, "breakdown-")]


@pytest.mark.parametrize("name", sorted(registry._MODULES))
def test_each_registered_kind_is_made_by_its_card_and_stores_in_a_known_table(name):
    card = registry.card(name)
    assert card.claims(name) and card.table in all_tables()
    suite = f"{name}-agent-tested" if card.family else name
    kind = registry.kind_of(suite)
    assert kind.name == suite and registry.is_registered(suite)


def test_a_suite_nobody_claims_is_agent_tasks_and_loads_no_kind_module():
    before = set(sys.modules)
    assert registry.own_card("kbench") is None and not registry.is_registered("kbench")
    assert not {m for m in set(sys.modules) - before if m.startswith(("gpu", "sandbox.chatwork"))}
    kind = registry.kind_of("kbench")
    assert isinstance(kind, AgentTasks) and registry.card("kbench").table == "gradings"
    assert not registry.is_registered("trialsx") and not registry.is_registered("kernels-fast")
