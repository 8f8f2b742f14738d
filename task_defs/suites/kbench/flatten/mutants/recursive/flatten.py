# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def flatten(items):
    if not isinstance(items, list):
        raise TypeError("expected a list")
    out = []
    for x in items:
        if isinstance(x, list):
            out.extend(flatten(x))
        else:
            out.append(x)
    return out
