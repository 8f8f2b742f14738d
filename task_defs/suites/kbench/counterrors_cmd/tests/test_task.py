# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib

import kbtest as kb

ANSWER = "56"  # lines whose level field is ERROR; several INFO/WARN/DEBUG lines mention ERROR in the message
LOG_SHA256 = "629d06cb6bf6ffb47ea94c3cb3d822ed162417ea2c51062b34ee71a9161b9174"  # setup/app.log as given


@kb.case
def answer_is_the_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def log_left_alone():
    # "Leave app.log as it is": byte for byte, so a log cut down to its ERROR lines (same count) fails too
    kb.eq(hashlib.sha256(kb.read_bytes("app.log")).hexdigest(), LOG_SHA256, "sha256 of app.log (it must not change)")


kb.main()
