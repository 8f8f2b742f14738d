# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib

import kbtest as kb

# wc -w. Wrong totals seen: 236 (awk NF: a carriage return after a space counts as a field),
# 234 (split on single spaces), 226 (tr -s ' ' '\n': tabs left as separators inside words).
ANSWER = "233"
STORY_SHA256 = "059b5469f4ec866a1e068059fe9fc6dc4e2c038f7d50e5452f3bd76f19e070a4"


@kb.case
def answer_is_the_word_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number (no file name), got %r" % text[:80])


@kb.case
def story_left_intact():
    with open(kb.path("story.txt"), "rb") as fh:
        kb.eq(hashlib.sha256(fh.read()).hexdigest(), STORY_SHA256, "sha256 of story.txt (it must not be changed)")


kb.main()
