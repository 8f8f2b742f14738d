# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb

# 14 regular *.py files, 216 newline characters in all. Common wrong totals: 150 (hidden files and
# folders skipped), 217 (a last line without a newline counted), 220 (migrate.PY counted),
# 198 ("order item.py" lost to word splitting).
ANSWER = 216
PY_FILES = 14


def newline_total():
    total = files = 0
    for dirpath, _dirs, names in os.walk(kb.path("src")):
        for name in names:
            full = os.path.join(dirpath, name)
            if name.endswith(".py") and os.path.isfile(full) and not os.path.islink(full):
                files += 1
                with open(full, "rb") as fh:
                    total += fh.read().count(b"\n")
    return files, total


@kb.case
def answer_is_the_total():
    kb.eq(kb.read("answer.txt").strip(), str(ANSWER), "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def sources_left_intact():
    kb.eq(newline_total(), (PY_FILES, ANSWER), "(number of .py files, their newline total) under src/")
    kb.ok(os.path.isdir(kb.path("src/legacy.py")), "src/legacy.py must still be a folder")


kb.main()
