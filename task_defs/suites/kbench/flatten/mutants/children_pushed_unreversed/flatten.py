# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def flatten(items):
    if not isinstance(items, list):
        raise TypeError("expected a list")
    out = []
    stack = list(reversed(items))
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            stack.extend(x)
        else:
            out.append(x)
    return out
