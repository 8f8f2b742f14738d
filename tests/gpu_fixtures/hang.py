# task: softmax_fp32
# expect: timeout
"""Never returns."""
import time


def kernel(x, out):
    while True:
        time.sleep(0.05)
