# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def flatten(items):
    if not isinstance(items, list):
        raise TypeError("expected a list")
    out = []
    stack = [iter(items)]
    while stack:
        for x in stack[-1]:
            if not x:
                continue
            if isinstance(x, list):
                stack.append(iter(x))
                break
            out.append(x)
        else:
            stack.pop()
    return out
