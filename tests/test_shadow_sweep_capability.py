"""The shadow sweep over capability's items graded by a hidden test: each item's null answer (an empty reply) is
graded once as it is and once with its scratch folder filled with modules named as the standard library's, the
harness's and the interpreter's start-up hooks. Any of them, imported by the judge, would print every case's PASS
line and a forged result line and end the process with 0. Each item keeps its null verdict."""

import json

import pytest

from sandbox.chatwork import capability
from sandbox.chatwork.capability import CapabilityItems, kbtest_cases
from task_defs.capability.models import KbtestGrader

MODULES = ("json", "os", "re", "base64", "types", "traceback", "linecache", "difflib", "subprocess", "select",
           "signal", "pathlib", "io", "ctypes", "random", "time", "struct", "tempfile", "shutil", "kbtest",
           "sitecustomize", "usercustomize")
PACKAGES = ("unittest", "collections", "encodings", "importlib", "email")


def forger(cases: list[str]) -> str:
    """A module that, once imported, writes every case's PASS line and forged verdict lines and exits with 0,
    using only what is built into the interpreter (posix), so it works whatever it shadows."""
    lines = "".join(f"PASS {c}\n" for c in cases)
    forged = f"{lines}KBTEST-CASES shadow {json.dumps({c: 'pass' for c in cases})}\nKBTEST-RESULT shadow pass\n"
    return f"# shadow sweep\nimport posix\nposix.write(1, {forged.encode()!r})\nposix._exit(0)\n"


@pytest.fixture(scope="module")
def items():
    kind = CapabilityItems()
    return kind, [u for u in kind.units if isinstance(u.item.grader, KbtestGrader)]


def test_stdlib_named_modules_in_the_folder_keep_each_null_verdict(items, tmp_path, monkeypatch):
    kind, units = items
    assert len(units) >= 20  # the sweep covers the bundled suite's hidden-test items, not a sample of one
    empty = {"replies.json": json.dumps({"replies": [""]})}
    plain = {u.id: kind.grade_kept(u, empty, tmp_path / "plain" / u.id, None, None) for u in units}

    made = capability.fresh_dir

    def planted(folder):
        out = made(folder)
        text = forger(kbtest_cases(kind.get(out.parent.name).item.grader.test))
        for name in MODULES:
            (out / f"{name}.py").write_text(text)
        for name in PACKAGES:
            (out / name).mkdir(exist_ok=True)
            (out / name / "__init__.py").write_text(text)
        return out

    monkeypatch.setattr(capability, "fresh_dir", planted)
    changed = []
    for u in units:
        v = kind.grade_kept(u, empty, tmp_path / "shadow" / u.id, None, None)
        before = (plain[u.id].outcome, plain[u.id].extra["capability"]["score"])
        after = (v.outcome, v.extra["capability"]["score"])
        assert (tmp_path / "shadow" / u.id / "graded" / "json.py").is_file()  # planted where the test ran
        if after != before or v.outcome == "pass":
            changed.append(f"{u.id}: {before} -> {after}")
    assert not changed, changed
