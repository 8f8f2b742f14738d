# task: softmax_fp32
# expect: cheat_rejected
"""Finds the worker's connection through the call frames and answers the grader with a pickle whose unpickling
would run code in the grader's own process (it would leave a file beside the grader's private reference)."""
import sys


class _Payload:
    def __reduce__(self):
        code = ("import os, pathlib; "
                "pathlib.Path(os.environ.get('KBENCH_FIXTURE_TARGET', '/nonexistent/x')).with_name('pwned')"
                ".write_text('ran in the grader')")
        return (exec, (code,))


frame = sys._getframe()
while frame is not None and "conn" not in frame.f_locals:
    frame = frame.f_back
if frame is not None:
    frame.f_locals["conn"].send(("ready", {"tamper": [], "x": _Payload()}))


def kernel(x, out):
    out.fill_(1.0)
