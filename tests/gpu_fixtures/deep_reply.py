# task: softmax_fp32
# expect: cheat_rejected
"""Writes one well-framed reply whose JSON nests 200,000 lists deep: a parser that only expects malformed text
(not a recursion error) lets the exception escape the grader instead of answering with a status."""
import sys
import time

frame = sys._getframe()
while frame is not None and "conn" not in frame.f_locals:
    frame = frame.f_back
if frame is not None:
    frame.f_locals["conn"].send_bytes(b"[" * 200000 + b"]" * 200000)
    time.sleep(30)


def kernel(x, out):
    pass
