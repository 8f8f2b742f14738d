# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def clamp(x, low, high):
    x, low, high = float(x), float(low), float(high)
    if low > high:
        raise ValueError("low > high")
    return max(low, min(x, high))
