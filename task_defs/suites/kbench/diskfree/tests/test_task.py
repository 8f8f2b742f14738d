# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os
import re

import kbtest as kb

# Free space moves while other jobs run: accept 2% of the true value or 200 MiB, whichever is larger.
TOLERANCE_FLOOR_KB = 200 * 1024
TOLERANCE_SHARE = 0.02


def truth():
    """Every df column of this filesystem, in 1K blocks."""
    st = os.statvfs(kb.path("."))
    return {
        "available": st.f_bavail * st.f_frsize // 1024,
        "free (including the space reserved for root)": st.f_bfree * st.f_frsize // 1024,
        "used": (st.f_blocks - st.f_bfree) * st.f_frsize // 1024,
        "total size": st.f_blocks * st.f_frsize // 1024,
    }


def answer():
    """The number answer.txt starts with: the value cases judge the number, answer_is_one_plain_number the form."""
    found = re.match(r"\s*([0-9]+)", kb.read("answer.txt"))
    kb.ok(found is not None, "answer.txt does not start with a number")
    return int(found.group(1))


def close(got, want):
    return abs(got - want) <= max(TOLERANCE_FLOOR_KB, TOLERANCE_SHARE * want)


def unit_hints(got, want):
    hints = []
    for factor, unit in ((1024, "bytes"), (2, "512-byte blocks"), (1 / 1024, "MiB"), (1 / 1024 / 1024, "GiB")):
        if close(got, want * factor) or (factor < 1 and abs(got - want * factor) <= 1):
            hints.append("it looks like %s, not 1K blocks" % unit)
    return hints


@kb.case
def answer_is_one_plain_number():
    text = kb.read("answer.txt").strip()
    kb.ok(re.fullmatch(r"[0-9]+", text) is not None,
          "answer.txt must hold only a whole number of 1K blocks, got %r" % text[:80])


@kb.case
def counted_in_1k_blocks():
    # some column of df -k: the unit is right, whichever column it is
    got, columns = answer(), truth()
    if not any(close(got, v) for v in columns.values()):
        hints = unit_hints(got, columns["available"])
        raise AssertionError("%d is not any df -k figure of this filesystem (available about %d)%s"
                             % (got, columns["available"], (" (" + "; ".join(hints) + ")") if hints else ""))


@kb.case
def answer_is_the_available_space():
    got, want = answer(), truth()["available"]
    if not close(got, want):
        hints = unit_hints(got, want)
        for label, value in truth().items():
            if label != "available" and value != want and close(got, value) and not close(value, want):
                hints.append("it looks like the %s" % label)
        raise AssertionError("available 1K blocks: expected about %d, got %d%s"
                             % (want, got, (" (" + "; ".join(hints) + ")") if hints else ""))


kb.main()
