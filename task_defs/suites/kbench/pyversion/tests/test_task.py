# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

import kbtest as kb


def expected():
    # the python3 found on the PATH of this very sandbox, asked the way the prompt says
    rc, out, err = kb.run(["python3", "-c", "import platform; print(platform.python_version())"])
    if rc != 0 or not out.strip():
        raise RuntimeError("the test could not run python3 itself: rc=%s %s" % (rc, err.strip()[-300:]))
    return out.strip()


@kb.case
def version_matches():
    # the first dotted number in answer.txt: the form is judged by the two cases below
    text = kb.read("answer.txt").strip()
    found = re.search(r"[0-9]+(?:\.[0-9]+)+", text)
    kb.eq(found.group(0) if found else text[:80], expected(), "the version in answer.txt")


@kb.case
def without_the_word_python():
    text = kb.read("answer.txt")
    kb.ok("python" not in text.lower(), "answer.txt must hold the number without the word Python, got %r" % text[:80])


@kb.case
def only_x_y_z():
    text = kb.read("answer.txt").strip()
    kb.ok(re.fullmatch(r"\d+\.\d+\.\d+", text) is not None,
          "answer.txt must hold only the version as X.Y.Z (no 'Python ' prefix), got %r" % text[:80])


kb.main()
