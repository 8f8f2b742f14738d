# task: softmax_fp32
# expect: timeout,cheat_rejected
"""On its first call, writes only the length header of a reply onto the grader's channel and sleeps: a grader
that waits for the rest without a deadline hangs for good."""
import os
import struct
import sys
import time


def kernel(x, out):
    frame = sys._getframe()
    while frame is not None and "conn" not in frame.f_locals:
        frame = frame.f_back
    os.write(frame.f_locals["conn"].fileno(), struct.pack("!i", 1000))
    time.sleep(3600)
