# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

import kbtest as kb

ANSWER = "5439"  # database -> replicas -> second element (index 1) -> port


def answer():
    return kb.read("answer.txt").strip()


@kb.case
def value_is_right():
    # the right port is in answer.txt; its form and the absence of other values are the cases below
    numbers = re.findall(r"[0-9]+", answer())
    kb.ok(ANSWER in numbers, "answer.txt must hold the port of database.replicas[1], got %r" % answer()[:80])


@kb.case
def only_the_bare_number():
    text = answer()
    kb.ok(text.isdigit(), "answer.txt must hold only the number (no quotes, key or JSON), got %r" % text[:80])


@kb.case
def single_line():
    kb.eq(len(kb.read("answer.txt").strip().splitlines()), 1, "number of non-blank lines in answer.txt")


kb.main()
