# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import time


def retry(fn, attempts=3, delay=0.5):
    for i in range(attempts):
        try:
            return fn()
        except OSError:
            if i == attempts - 1:
                raise
            time.sleep(delay)
