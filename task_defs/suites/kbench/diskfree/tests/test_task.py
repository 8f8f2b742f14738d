# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os
import re

import kbtest as kb

# Free space moves while other jobs run: accept 2% of the true value or 200 MiB, whichever is larger.
TOLERANCE_FLOOR_KB = 200 * 1024
TOLERANCE_SHARE = 0.02


def truth():
    st = os.statvfs(kb.path("."))
    return {
        "available": st.f_bavail * st.f_frsize // 1024,
        "free (including the space reserved for root)": st.f_bfree * st.f_frsize // 1024,
        "total size": st.f_blocks * st.f_frsize // 1024,
    }


def answer():
    text = kb.read("answer.txt").strip()
    return int(text) if text.isdigit() else None


def close(got, want):
    return abs(got - want) <= max(TOLERANCE_FLOOR_KB, TOLERANCE_SHARE * want)


@kb.case
def answer_is_one_plain_number():
    text = kb.read("answer.txt").strip()
    kb.ok(re.fullmatch(r"[0-9]+", text) is not None,
          "answer.txt must hold only a whole number of 1K blocks, got %r" % text[:80])


@kb.case
def answer_is_the_available_space():
    got, want = answer(), truth()["available"]
    kb.ok(got is not None, "answer.txt holds no plain number")
    if not close(got, want):
        hints = []
        for factor, unit in ((1024, "bytes"), (2, "512-byte blocks"), (1 / 1024, "MiB"), (1 / 1024 / 1024, "GiB")):
            if close(got, want * factor) or (factor < 1 and abs(got - want * factor) <= 1):
                hints.append("it looks like %s, not 1K blocks" % unit)
        for label, value in truth().items():
            if label != "available" and value != want and close(got, value) and not close(value, want):
                hints.append("it looks like the %s" % label)
        raise AssertionError("available 1K blocks: expected about %d, got %d%s"
                             % (want, got, (" (" + "; ".join(hints) + ")") if hints else ""))


kb.main()
