# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def clamp(x, low, high):
    if high < low:
        raise ValueError("low %r is above high %r" % (low, high))
    return sorted([low, x, high])[1]
