# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def clamp(x, low, high):
    if low >= high:
        raise ValueError("low must be below high")
    if x < low:
        return low
    if x > high:
        return high
    return x
