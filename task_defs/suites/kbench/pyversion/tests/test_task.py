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
    kb.eq(kb.read("answer.txt").strip(), expected(), "answer.txt")


@kb.case
def only_x_y_z():
    text = kb.read("answer.txt").strip()
    kb.ok(re.fullmatch(r"\d+\.\d+\.\d+", text) is not None,
          "answer.txt must hold only the version as X.Y.Z (no 'Python ' prefix), got %r" % text[:80])


kb.main()
