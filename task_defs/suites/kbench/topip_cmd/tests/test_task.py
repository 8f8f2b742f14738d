# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import re

import kbtest as kb

# 187 requests. Runner-up 198.51.100.230 has 181; counting every address anywhere in the line puts
# 192.0.2.77 (URLs, referers) and 10.0.0.5 (a user agent) on top; uniq -c without sort gives 66.249.66.1.
ANSWER = "198.51.100.23"
LOG_SHA256 = "c147970b8f0d0493c78853fab08473d691b091af8c9bb7e36e541ca6879c29d2"


@kb.case
def answer_is_the_top_client():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_an_address():
    text = kb.read("answer.txt").strip()
    kb.ok(re.fullmatch(r"[0-9A-Fa-f.:]+", text) is not None,
          "answer.txt must hold only the address (no count, no other text), got %r" % text[:80])


@kb.case
def log_left_intact():
    with open(kb.path("access.log"), "rb") as fh:
        kb.eq(hashlib.sha256(fh.read()).hexdigest(), LOG_SHA256, "sha256 of access.log (it must not be changed)")


kb.main()
