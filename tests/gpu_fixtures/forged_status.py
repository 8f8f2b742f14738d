# task: softmax_fp32
# expect: cheat_rejected
"""Writes a well-formed JSON reply on the grader's channel at import, claiming the status "ok" before a single
output was checked, then waits."""
import json
import sys
import time

frame = sys._getframe()
while frame is not None and "conn" not in frame.f_locals:
    frame = frame.f_back
if frame is not None:
    frame.f_locals["conn"].send_bytes(json.dumps(["ok", "all good"]).encode())
    time.sleep(30)


def kernel(x, out):
    pass
