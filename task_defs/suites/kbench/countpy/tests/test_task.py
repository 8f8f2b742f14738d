# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb

# 14 regular *.py files, 216 newline characters in all. Common wrong totals: 150 (hidden files and
# folders skipped), 217 (a last line without a newline counted), 220 (migrate.PY counted),
# 198 ("order item.py" lost to word splitting).
ANSWER = 216
# newline count of every .py file, by path under src/: a renamed or edited source shows up here
PY_FILES = {
    ".tools/lint_rules.py": 9,
    ".venv/lib/python3.11/site-packages/consts.py": 41,
    "app/__init__.py": 0,
    "app/main.py": 28,
    "app/models/__init__.py": 0,
    "app/models/order item.py": 18,
    "app/models/user.py": 15,
    "app/utils/__init__.py": 0,
    "app/utils/retry.py": 12,
    "app/utils/strings.py": 14,
    "build/lib/app/main.py": 28,
    "scripts/.hidden_helper.py": 16,
    "tests/conftest.py": 9,
    "tests/test_main.py": 26,
}
assert sum(PY_FILES.values()) == ANSWER


def newlines_by_file():
    out = {}
    root = kb.path("src")
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            full = os.path.join(dirpath, name)
            if name.endswith(".py") and os.path.isfile(full) and not os.path.islink(full):
                with open(full, "rb") as fh:
                    out[os.path.relpath(full, root)] = fh.read().count(b"\n")
    return out


@kb.case
def answer_is_the_total():
    kb.eq(kb.read("answer.txt").strip(), str(ANSWER), "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def sources_left_intact():
    kb.eq(newlines_by_file(), PY_FILES, "the .py files under src/ (path: newline count)")
    kb.ok(os.path.isdir(kb.path("src/legacy.py")), "src/legacy.py must still be a folder")


kb.main()
