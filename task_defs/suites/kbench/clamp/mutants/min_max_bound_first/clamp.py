# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def clamp(x, low, high):
    if low > high:
        raise ValueError("empty range")
    return min(high, max(low, x))
