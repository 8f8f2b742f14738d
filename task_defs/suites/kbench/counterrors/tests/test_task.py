# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib

import kbtest as kb

ANSWER = "56"  # lines whose level field is ERROR; several INFO/WARN lines mention ERROR in the message
LOG_SHA256 = "629d06cb6bf6ffb47ea94c3cb3d822ed162417ea2c51062b34ee71a9161b9174"


@kb.case
def answer_is_the_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def log_left_intact():
    with open(kb.path("app.log"), "rb") as fh:
        kb.eq(hashlib.sha256(fh.read()).hexdigest(), LOG_SHA256, "sha256 of app.log (it must not be changed)")


kb.main()
