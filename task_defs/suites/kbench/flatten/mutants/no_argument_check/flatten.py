# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def flatten(items):
    out = []
    stack = [iter(items)]
    while stack:
        for x in stack[-1]:
            if isinstance(x, list):
                stack.append(iter(x))
                break
            out.append(x)
        else:
            stack.pop()
    return out
